// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// node js_deep.js DEPTH SECONDS: the workload of bench/node.sh. DEPTH
// frames of jsrec (each called once: interpreted, never optimized), then
// spin at the bottom until the process has used SECONDS of CPU time.
'use strict';

const depth = Number(process.argv[2]);
const secs = Number(process.argv[3]);

function spin() {
	const until = secs * 1e6;	// process.cpuUsage() is in us
	let x = 1;

	for (;;) {
		for (let i = 0; i < 1e6; i++)
			x = (x * 31 + 7) | 0;
		const u = process.cpuUsage();
		if (u.user + u.system >= until)
			return x;
	}
}

function jsrec(n) {
	// not a tail call: the frame stays
	return n > 1 ? jsrec(n - 1) + 1 : spin();
}

if (!(depth >= 1) || !(secs > 0)) {
	console.error('usage: node js_deep.js DEPTH SECONDS');
	process.exit(2);
}
jsrec(depth);
