// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//! No frame pointers (-C force-frame-pointers=no -C opt-level=2): main ->
//! chain_a -> chain_b -> chain_c spinning, under Rust's runtime start
//! (std::rt::lang_start). Usage: rust SECONDS
//! A sleeping thread sets the stop flag, so no clock call adds frames.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

static STOP: AtomicBool = AtomicBool::new(false);
static SINK: AtomicU64 = AtomicU64::new(0);

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
    let secs: u64 = match std::env::args().nth(1).and_then(|s| s.parse().ok()) {
        Some(s) if s > 0 => s,
        _ => {
            eprintln!("usage: rust SECONDS");
            std::process::exit(2);
        }
    };
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(secs));
        STOP.store(true, Ordering::Relaxed);
    });
    let r = chain_a(unsafe { std::ptr::read_volatile(&secs) });
    SINK.fetch_add(r, Ordering::Relaxed);
}
