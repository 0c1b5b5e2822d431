// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * C++ source-line fixture (tests/dbg.mk, -O2 -g): a class template whose
 * methods are inlined into each other and into a loop, in a namespace, so
 * that names come from DW_AT_linkage_name (demangled) and the inlined
 * methods' abstract instances have DW_AT_specification. ./inline-cpp N
 * prints a number.
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace dbg {

template <typename T>
class Ring {
public:
	explicit Ring(size_t n) : buf_(n ? n : 1), pos_(0) {}

	__attribute__((always_inline)) void push(T v)
	{
		buf_[pos_] = fold(v);
		pos_ = (pos_ + 1) % buf_.size();
	}

	T total() const
	{
		T s = 0;

		for (const T &x : buf_)
			s += x;
		return s;
	}

private:
	__attribute__((always_inline)) static T fold(T v)
	{
		return v ^ (v >> 7) ^ twist(v);
	}

	static inline T twist(T v)
	{
		return v * 2654435761u + 1;
	}

	std::vector<T> buf_;
	size_t pos_;
};

template <typename T>
__attribute__((noinline)) T fill(Ring<T> &r, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		r.push(static_cast<T>(i));
	return r.total();
}

} // namespace dbg

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)std::strtoul(argv[1], nullptr, 0) : 1000;
	dbg::Ring<unsigned> a(64);
	dbg::Ring<unsigned long> b(32);

	std::printf("%lu\n", (unsigned long)dbg::fill(a, n) + dbg::fill(b, n));
	return 0;
}
