//! Growing a long vector an eighth at a time: a `Vec` that doubles when full asks for its whole
//! size again in one step, so a transcript of many lines would jump past its budget by what it
//! already holds. Grown gently, one step is at most an eighth of it (each element is copied
//! about eight times over the vector's life instead of about once: a few percent of a line's
//! cost).

use std::collections::VecDeque;

/// The capacity to grow to for `needed` elements, from `capacity`: an eighth more, at least
/// what is needed and 16.
fn next_capacity(capacity: usize, needed: usize) -> usize {
    needed.max(capacity.saturating_add(capacity / 8)).max(16)
}

/// Makes room in `vec` for `additional` more elements, growing it gently (see the module's doc).
pub fn reserve_gently<T>(vec: &mut Vec<T>, additional: usize) {
    let needed = vec.len().saturating_add(additional);
    if needed > vec.capacity() {
        let to = next_capacity(vec.capacity(), needed);
        vec.reserve_exact(to - vec.len());
    }
}

/// [`reserve_gently`] for a `VecDeque`.
pub fn reserve_gently_deque<T>(deque: &mut VecDeque<T>, additional: usize) {
    let needed = deque.len().saturating_add(additional);
    if needed > deque.capacity() {
        let to = next_capacity(deque.capacity(), needed);
        deque.reserve_exact(to - deque.len());
    }
}

/// Gives back what `vec` keeps beyond twice its length (and 64 elements): after a long
/// vector let most of its elements go, it need not keep room for them.
pub fn shrink_gently<T>(vec: &mut Vec<T>) {
    if vec.capacity() > 2 * vec.len() + 64 {
        vec.shrink_to(2 * vec.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_vector_grows_by_an_eighth() {
        let mut v: Vec<u64> = vec![0; 800];
        assert_eq!(v.capacity(), 800);
        reserve_gently(&mut v, 1);
        assert_eq!(v.capacity(), 900);
        reserve_gently(&mut v, 1);
        assert_eq!(v.capacity(), 900, "room left: nothing to do");
        reserve_gently(&mut v, 5000);
        assert_eq!(
            v.capacity(),
            5800,
            "what is needed, when more than an eighth"
        );
        let mut s: Vec<u64> = Vec::with_capacity(1000);
        s.extend(0..100);
        shrink_gently(&mut s);
        assert!(
            s.capacity() >= 200 && s.capacity() < 1000,
            "{}",
            s.capacity()
        );
        let kept = s.capacity();
        shrink_gently(&mut s);
        assert_eq!(s.capacity(), kept, "within twice its length: kept");
        let mut d: VecDeque<u8> = VecDeque::new();
        reserve_gently_deque(&mut d, 1);
        assert!(d.capacity() >= 16);
    }
}
