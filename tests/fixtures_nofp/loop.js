// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Debian's node (V8) running a loop: node loop.js SECONDS, of the process's
// CPU time (process.cpuUsage(), as tests/cpu_budget.h counts it). V8's
// Builtins_* (the interpreter's entry trampolines) are code in the node
// binary that no FDE covers: the C stack below them, from _start through
// node::Start, is found only by a frame-pointer step through them.
'use strict';

const secs = parseFloat(process.argv[2]);

function work(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += Math.sqrt(i) * Math.sin(i);
	return s;
}

function spin() {
	let t = 0;
	for (;;) {
		const u = process.cpuUsage();

		if ((u.user + u.system) / 1e6 >= secs)
			return t;
		t += work(20000);
	}
}

if (!(secs > 0)) {
	process.stderr.write('usage: node loop.js SECONDS\n');
	process.exit(2);
}
spin();
