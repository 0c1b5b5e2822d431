// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, C++ exceptions: main -> cx_run catches what level3
 * throws through level2 and level1, over and over; level3 spins for a while
 * before each throw, so most samples are main;cx_run;level1;level2;level3
 * and the rest are in the C++ runtime's unwinder (libstdc++, libgcc_s)
 * under that chain. Usage: cxx SECONDS
 * extern "C" names, so that the profile's names do not depend on demangling.
 */
#include <stdexcept>

#include "nofp.h"

#define SPINS 200000

extern "C" {

NOFP_FN void level3(int i)
{
	for (long k = 0; k < SPINS; k++)
		nofp_sink = nofp_sink * 31 + 7;
	throw std::runtime_error(i & 1 ? "odd" : "even");
}

NOFP_FN void level2(int i)
{
	volatile char pad[40];

	pad[0] = 1;
	level3(i);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN void level1(int i)
{
	volatile char pad[88];

	pad[0] = 1;
	level2(i);
	NOFP_AFTER_CALL();
	nofp_sink += pad[0];
}

NOFP_FN unsigned long cx_run(void)
{
	unsigned long caught = 0;

	for (int i = 0; !nofp_stop; i++) {
		try {
			level1(i);
		} catch (const std::exception &e) {
			caught += e.what()[0];
		}
	}
	return caught;
}

}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "cxx SECONDS");
	nofp_sink += cx_run();
	return 0;
}
