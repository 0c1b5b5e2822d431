// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause

// The Go fixture of the .gopclntab tests (tests/go.mk): a known chain
// main.main -> main.top -> main.mid -> main.leaf, each kept a call by
// //go:noinline, and main.step, small enough that the compiler inlines it
// into main.leaf: the frame the tests expect as an inlined frame under
// its caller. It runs on a goroutine (main.main.func1) as services do,
// until the process has used the CPU seconds of its first argument (not
// wall time: samples come from CPU time).
//
// Built unstripped and with -ldflags="-s -w" by each Go toolchain the
// tests have, into $(BUILD)/fixtures_go.
package main

import (
	"os"
	"strconv"
	"syscall"
)

var sink uint64

// cpuUsed is the process's CPU time so far, in seconds.
func cpuUsed() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// step is inlined into leaf (no directive): the inlined frame.
func step(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

//go:noinline
func leaf(x uint64) uint64 {
	for i := 0; i < 200000; i++ {
		x = step(x)
	}
	return x
}

//go:noinline
func mid(x uint64) uint64 {
	return leaf(x) + 1
}

//go:noinline
func top(x uint64) uint64 {
	return mid(x) + 1
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	done := make(chan uint64)
	go func() {
		x := uint64(88172645463325252)
		for cpuUsed() < secs {
			x = top(x)
		}
		done <- x
	}()
	sink = <-done
}
