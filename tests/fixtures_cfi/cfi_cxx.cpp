// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * C++ fixture for the readelf oracle test: exceptions (throw, catch,
 * rethrow, nested try), destructors run during unwinding, virtual calls,
 * templates and lambdas, so the FDEs carry LSDAs and landing pads whose
 * CFI is restored after the epilogues. Run, it exits 0.
 */
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static int destroyed;

struct Guard {
	std::string name;
	explicit Guard(std::string n) : name(std::move(n)) {}
	~Guard() { destroyed++; }
};

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

struct Rect : Shape {
	double w, h;
	Rect(double a, double b) : w(a), h(b) {}
	double area() const override { return w * h; }
};

__attribute__((noinline)) static int thrower(int v)
{
	Guard g("thrower");

	if (v > 3)
		throw std::runtime_error("too big: " + std::to_string(v));
	return v * 2;
}

__attribute__((noinline)) static int rethrower(int v)
{
	Guard g("rethrower");
	std::vector<int> keep(static_cast<size_t>(v) + 1, v);

	try {
		return thrower(v) + keep.back();
	} catch (const std::runtime_error &) {
		Guard inner("inner");
		throw;
	}
}

template <typename T> __attribute__((noinline)) T accumulate(const std::vector<T> &v)
{
	T s{};
	for (const auto &x : v)
		s += x;
	return s;
}

__attribute__((noinline)) static double shapes(int n)
{
	std::vector<std::unique_ptr<Shape>> all;

	for (int i = 1; i <= n; i++)
		all.push_back(std::make_unique<Rect>(i, i + 1));
	double total = 0;
	for (const auto &s : all)
		total += s->area();
	return total;
}

__attribute__((noinline)) static int count_words(const std::string &text)
{
	std::map<std::string, int> counts;
	std::string word;

	auto flush = [&]() {
		if (!word.empty())
			counts[word]++;
		word.clear();
	};
	for (char c : text) {
		if (c == ' ')
			flush();
		else
			word += c;
	}
	flush();
	return static_cast<int>(counts.size());
}

int main(int argc, char **)
{
	int caught = 0;

	for (int i = 0; i < 6 + argc; i++) {
		try {
			rethrower(i);
		} catch (const std::exception &e) {
			caught++;
		}
	}
	try {
		try {
			thrower(10);
		} catch (const std::logic_error &) {
			return 1;	/* not this one */
		}
	} catch (...) {
		caught++;
	}
	std::vector<long> v{ 1, 2, 3, 4 };
	if (accumulate(v) != 10 || shapes(3) != 20.0 || count_words("a b a c") != 3)
		return 1;
	if (caught != 3 + argc || destroyed == 0)
		return 1;
	std::printf("ok\n");
	return 0;
}
