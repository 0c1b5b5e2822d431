// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * burn-cxx SECONDS: the C++ workload of bench/probe-read-system.sh, busy
 * for SECONDS s in libstdc++ (stream formatting and parsing, std::string,
 * std::map, std::sort), so that its stacks go through a big C++ library
 * with long demangled names.
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

static volatile double sink;

static std::vector<std::string> format_round(unsigned *seed)
{
	std::vector<std::string> v;

	for (int i = 0; i < 256; i++) {
		std::ostringstream os;

		os << rand_r(seed) / 7.0 << ' ' << rand_r(seed);
		v.push_back(os.str());
	}
	return v;
}

static void parse_round(const std::vector<std::string> &v)
{
	std::map<std::string, double> m;

	for (const auto &s : v) {
		std::istringstream is(s);
		double d;
		long l;

		is >> d >> l;
		m[s.substr(0, 6)] += d + l;
	}
	sink += m.size();
}

int main(int argc, char **argv)
{
	using clock = std::chrono::steady_clock;

	if (argc != 2 || std::atof(argv[1]) <= 0) {
		std::fprintf(stderr, "usage: burn-cxx SECONDS\n");
		return 2;
	}
	auto end = clock::now() + std::chrono::duration<double>(std::atof(argv[1]));
	unsigned seed = 1;

	while (clock::now() < end) {
		auto v = format_round(&seed);

		std::sort(v.begin(), v.end());
		parse_round(v);
	}
	return 0;
}
