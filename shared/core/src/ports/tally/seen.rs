//! [`Seen`]: the markers a process knows to last, so that an addition repeated within its
//! marker's life is answered without asking the store.

use std::{num::NonZeroUsize, sync::Mutex};

use lru::LruCache;

use crate::ports::table::Key;

/// Markers known to last, each until an epoch second; the least recently used go first when
/// full (an addition whose marker went is then asked of the store again, which still refuses
/// it while the stored marker lasts).
pub struct Seen {
    markers: Mutex<LruCache<Key, i64>>,
}

impl Seen {
    /// Room for `capacity` markers.
    pub fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        Self { markers: Mutex::new(LruCache::new(capacity)) }
    }

    fn markers(&self) -> std::sync::MutexGuard<'_, LruCache<Key, i64>> {
        self.markers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `marker` is known to last at `now` (a marker lasts up to, not including, its
    /// end, as a TTL item does).
    pub fn lasts(&self, marker: &Key, now: i64) -> bool {
        self.markers().get(marker).is_some_and(|until| *until > now)
    }

    /// Remembers that `marker` lasts until `until`.
    pub fn remember(&self, marker: Key, until: i64) {
        self.markers().put(marker, until);
    }

    /// Remembers `marker` until `until` unless it is known to last at `now`, at once: `true`
    /// when it was not (the caller makes the addition), `false` when it was.
    pub fn admit(&self, marker: &Key, now: i64, until: i64) -> bool {
        let mut markers = self.markers();
        if markers.get(marker).is_some_and(|known| *known > now) {
            return false;
        }
        markers.put(marker.clone(), until);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_admitted_once_until_it_ends_then_again() {
        let seen = Seen::new(10);
        let marker = Key::new("VIEWED#ab", "VIEWED");
        assert!(seen.admit(&marker, 1_000, 2_800));
        assert!(!seen.admit(&marker, 1_001, 2_801), "a second later");
        assert!(!seen.admit(&marker, 2_799, 4_599), "a second before the 30 minutes end");
        assert!(seen.lasts(&marker, 2_799) && !seen.lasts(&marker, 2_800));
        assert!(seen.admit(&marker, 2_800, 4_600), "30 minutes later");
        assert!(!seen.admit(&marker, 2_801, 4_601));
    }

    #[test]
    fn markers_are_told_apart_and_the_least_recently_used_goes_first() {
        let seen = Seen::new(2);
        let key = |n: u8| Key::new(format!("VIEWED#{n}"), "VIEWED");
        assert!(seen.admit(&key(1), 0, 100));
        assert!(seen.admit(&key(2), 0, 100));
        assert!(!seen.admit(&key(1), 1, 101));
        assert!(seen.admit(&key(3), 1, 101), "the third pushes out the second");
        assert!(seen.lasts(&key(1), 2) && !seen.lasts(&key(2), 2) && seen.lasts(&key(3), 2));
    }
}
