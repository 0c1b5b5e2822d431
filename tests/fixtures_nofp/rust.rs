// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//! No frame pointers (-C force-frame-pointers=no -C opt-level=2): main ->
//! chain_a -> chain_b -> chain_c spinning, under Rust's runtime start
//! (std::rt::lang_start). Usage: rust SECONDS (of CPU time)
//! A thread that sleeps between looks at the process's CPU time (as
//! tests/cpu_budget.h counts it) sets the stop flag, so no clock call adds
//! frames to the spinning thread's samples.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

static STOP: AtomicBool = AtomicBool::new(false);
static SINK: AtomicU64 = AtomicU64::new(0);

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

/// Seconds of CPU time the process has used.
fn cpu_used() -> f64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn chain_c(seed: u64) -> u64 {
    let mut x = seed;
    while !STOP.load(Ordering::Relaxed) {
        x = x.wrapping_mul(31).wrapping_add(7);
        SINK.store(x, Ordering::Relaxed);
    }
    x
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn chain_b(seed: u64) -> u64 {
    let pad = [seed; 5];
    let r = chain_c(unsafe { std::ptr::read_volatile(&pad[1]) });
    unsafe { std::ptr::read_volatile(&r) }.wrapping_add(pad[0])
}

#[inline(never)]
#[no_mangle]
pub extern "C" fn chain_a(seed: u64) -> u64 {
    let pad = [seed; 11];
    let r = chain_b(unsafe { std::ptr::read_volatile(&pad[2]) });
    unsafe { std::ptr::read_volatile(&r) }.wrapping_add(pad[0])
}

fn main() {
    let secs: f64 = match std::env::args().nth(1).and_then(|s| s.parse().ok()) {
        Some(s) if s > 0.0 => s,
        _ => {
            eprintln!("usage: rust SECONDS");
            std::process::exit(2);
        }
    };
    let end = cpu_used() + secs;
    std::thread::spawn(move || {
        while cpu_used() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
        STOP.store(true, Ordering::Relaxed);
    });
    let r = chain_a(unsafe { std::ptr::read_volatile(&secs) } as u64);
    SINK.fetch_add(r, Ordering::Relaxed);
}
