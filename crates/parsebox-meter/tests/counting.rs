//! The counting allocator, installed as a test binary's global allocator, counts what a
//! stretch of work keeps and gives back what it frees.

#![allow(clippy::unwrap_used)]

use parsebox_meter::{
    block_bytes, held_bytes, installed, limit_thread_bytes, measure, Counting, Meter,
};

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting::new(std::alloc::System);

#[test]
fn a_kept_block_is_counted_at_the_allocators_size_and_a_freed_one_is_given_back() {
    assert!(installed());
    let (kept, held) = measure(|| vec![0u8; 1000]);
    assert_eq!(held, block_bytes(1000, 1) as isize);
    let meter = Meter::start();
    drop(kept);
    assert_eq!(meter.held(), -(block_bytes(1000, 1) as isize));
}

#[test]
fn a_grown_block_counts_its_new_size_only() {
    let meter = Meter::start();
    let mut v: Vec<u8> = Vec::with_capacity(10);
    v.reserve_exact(5000);
    assert_eq!(meter.held(), block_bytes(v.capacity(), 1) as isize);
    drop(v);
    assert_eq!(meter.held(), 0);
}

#[test]
fn a_million_one_character_strings_cost_what_the_allocator_takes_for_each() {
    let meter = Meter::start();
    let strings: Vec<String> = (0..1_000_000).map(|_| "a".to_owned()).collect();
    let each = block_bytes(1, 1);
    let vec = block_bytes(strings.capacity() * std::mem::size_of::<String>(), 8);
    assert_eq!(meter.held(), (1_000_000 * each + vec) as isize);
    drop(strings);
    assert_eq!(meter.held(), 0);
}

#[test]
fn a_thread_past_its_limit_gets_no_block_and_other_threads_are_not_limited() {
    std::thread::spawn(|| {
        limit_thread_bytes(held_bytes() + (1 << 20));
        let mut small: Vec<u8> = Vec::new();
        assert!(
            small.try_reserve_exact(512 << 10).is_ok(),
            "within the limit"
        );
        let mut big: Vec<u8> = Vec::new();
        assert!(big.try_reserve_exact(1 << 20).is_err(), "past the limit");
        // Growing past it fails too, and leaves the block as it was.
        assert!(small.try_reserve_exact(1 << 20).is_err());
        assert_eq!(small.capacity(), 512 << 10);
        drop(small);
        assert!(
            big.try_reserve_exact(900 << 10).is_ok(),
            "freed bytes are room again"
        );
    })
    .join()
    .unwrap();
    let mut free: Vec<u8> = Vec::new();
    assert!(free.try_reserve_exact(4 << 20).is_ok());
}
