//! Which invocations an instance has taken: the relay ([`crate::relay`]) sees each payload an
//! instance receives, and the invocation waiting for it learns that its `Timeout` runs from
//! then. Invocations of equal payloads are taken in the order they were made.

use std::{
    collections::{HashMap, VecDeque},
    hash::{DefaultHasher, Hash, Hasher},
    sync::Mutex,
};

use std::sync::Arc;

use tokio::sync::oneshot;

use crate::{lock, relay::Instance};

/// The invocations no instance has taken yet, by the hash of their payload.
#[derive(Default)]
pub struct Pickups {
    waiting: Mutex<Waiting>,
}

#[derive(Default)]
struct Waiting {
    made: u64,
    by_payload: HashMap<u64, VecDeque<(Ticket, Taker)>>,
}

/// Where the instance that takes an invocation is told.
type Taker = oneshot::Sender<Arc<Instance>>;

/// One invocation among those waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    payload: u64,
    number: u64,
}

fn digest(payload: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    payload.hash(&mut hasher);
    hasher.finish()
}

impl Pickups {
    /// Notes an invocation of `payload` about to be made: its ticket, and what resolves with the
    /// instance that takes it.
    pub fn expect(&self, payload: &[u8]) -> (Ticket, oneshot::Receiver<Arc<Instance>>) {
        let mut waiting = lock(&self.waiting);
        waiting.made += 1;
        let ticket = Ticket { payload: digest(payload), number: waiting.made };
        let (sender, receiver) = oneshot::channel();
        waiting.by_payload.entry(ticket.payload).or_default().push_back((ticket, sender));
        (ticket, receiver)
    }

    /// The invocation of `ticket` is over (or was given up): nothing waits for it any more.
    pub fn forget(&self, ticket: Ticket) {
        let mut waiting = lock(&self.waiting);
        if let Some(queue) = waiting.by_payload.get_mut(&ticket.payload) {
            queue.retain(|(t, _)| *t != ticket);
            if queue.is_empty() {
                waiting.by_payload.remove(&ticket.payload);
            }
        }
    }

    /// `instance` received an invocation of `payload`: the oldest waiting one of that payload
    /// is taken by it.
    pub fn taken(&self, payload: &[u8], instance: &Arc<Instance>) {
        let mut waiting = lock(&self.waiting);
        let key = digest(payload);
        if let Some(queue) = waiting.by_payload.get_mut(&key) {
            if let Some((_, sender)) = queue.pop_front() {
                let _ = sender.send(instance.clone());
            }
            if queue.is_empty() {
                waiting.by_payload.remove(&key);
            }
        }
    }
}
