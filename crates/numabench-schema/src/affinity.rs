//! Affinity masks as the kernel passes them (`sched_getaffinity` and
//! `sched_setaffinity`: an array of 64-bit words, bit `c % 64` of word
//! `c / 64` for CPU `c`), decoded to CPU numbers and encoded from them.
//! The system calls stay with their callers (the pinning shim and the MPI
//! monitor call libc; the library goes through `nix`).

/// Bits in one mask word.
pub const WORD_BITS: usize = u64::BITS as usize;

/// The CPUs whose bits are set in `mask`, ascending.
pub fn cpus_in_mask(mask: &[u64]) -> Vec<usize> {
    (0..mask.len() * WORD_BITS)
        .filter(|&cpu| mask[cpu / WORD_BITS] & (1u64 << (cpu % WORD_BITS)) != 0)
        .collect()
}

/// The mask of `cpus` (any order, repeats allowed), at least `min_words`
/// words long (a caller passes glibc's `cpu_set_t` size, as C callers do).
pub fn mask_of_cpus(cpus: &[usize], min_words: usize) -> Vec<u64> {
    let words = cpus
        .iter()
        .max()
        .map_or(0, |highest| highest / WORD_BITS + 1)
        .max(min_words);
    let mut mask = vec![0u64; words];
    for &cpu in cpus {
        mask[cpu / WORD_BITS] |= 1u64 << (cpu % WORD_BITS);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bits_are_cpus_across_words() {
        // CPUs 0, 3, 64 and 130: bit 0 and 3 of word 0, bit 0 of word 1,
        // bit 2 of word 2.
        let mask = [0b1001, 1, 0b100];
        assert_eq!(cpus_in_mask(&mask), vec![0, 3, 64, 130]);
        assert_eq!(mask_of_cpus(&[130, 0, 64, 3, 3], 0), mask.to_vec());
        assert_eq!(mask_of_cpus(&[1], 16).len(), 16);
        assert!(cpus_in_mask(&[0, 0]).is_empty());
    }

    proptest! {
        #[test]
        fn encoding_then_decoding_gives_the_sorted_set(cpus in proptest::collection::vec(0usize..4096, 0..64)) {
            let mut set = cpus.clone();
            set.sort_unstable();
            set.dedup();
            prop_assert_eq!(cpus_in_mask(&mask_of_cpus(&cpus, 1)), set);
        }
    }
}
