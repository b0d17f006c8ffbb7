//! Which user's exchanges opened which `Mcp-Session-Id` (rule `session-owner`): the only state
//! the relay keeps per user, in memory only, and bounded — at most [`SESSIONS_PER_USER`] per
//! user and [`USERS`] users, the oldest forgotten first. A forgotten session is never handed to
//! whoever asks first: the relay answers it as an expired session (404), so any MCP client
//! starts a new one, as the spec says it must.
//!
//! Session ids are kept as a gateway sent them, here and nowhere else: never logged, never in a
//! message.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Sessions remembered per user; one more forgets the user's oldest.
pub const SESSIONS_PER_USER: usize = 32;

/// Users remembered; one more forgets the one idle longest, with their sessions.
pub const USERS: usize = 4096;

/// The owners of sessions.
#[derive(Debug, Default)]
pub struct Sessions {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Session id → (gateway, user).
    owner: HashMap<String, (String, String)>,
    /// User → their sessions, oldest first, and when they were last active.
    users: HashMap<String, (VecDeque<String>, u64)>,
    /// A counter standing for time, for "idle longest".
    tick: u64,
}

/// Whether a session id may be used by a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// Opened by this user's exchanges with this gateway.
    Mine,
    /// Opened by someone else, or on another gateway.
    NotMine,
    /// Not known: never seen, ended, or forgotten (the bounds, a restart).
    Unknown,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// May `user` send `id` to `gateway`?
    pub fn check(&self, gateway: &str, user: &str, id: &str) -> Ownership {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let found = match inner.owner.get(id) {
            None => Ownership::Unknown,
            Some((g, u)) if g == gateway && u == user => Ownership::Mine,
            Some(_) => Ownership::NotMine,
        };
        if found == Ownership::Mine
            && let Some((_, active)) = inner.users.get_mut(user)
        {
            *active = tick;
        }
        found
    }

    /// A gateway gave `user` the session `id`: remember it. Returns false when the id already
    /// belongs to another user or gateway (a gateway that reuses ids across clients), which is
    /// then not taken over.
    pub fn opened(&self, gateway: &str, user: &str, id: &str) -> bool {
        let mut inner = self.lock();
        if let Some((g, u)) = inner.owner.get(id) {
            return g == gateway && u == user;
        }
        inner.tick += 1;
        let tick = inner.tick;
        if !inner.users.contains_key(user) && inner.users.len() >= USERS {
            inner.forget_idlest_user();
        }
        let (list, active) = inner
            .users
            .entry(user.to_string())
            .or_insert_with(|| (VecDeque::new(), tick));
        *active = tick;
        list.push_back(id.to_string());
        let dropped = if list.len() > SESSIONS_PER_USER {
            list.pop_front()
        } else {
            None
        };
        if let Some(old) = dropped {
            inner.owner.remove(&old);
        }
        inner
            .owner
            .insert(id.to_string(), (gateway.to_string(), user.to_string()));
        true
    }

    /// The session ended (a `DELETE` the gateway accepted): forget it.
    pub fn closed(&self, user: &str, id: &str) {
        let mut inner = self.lock();
        if inner.owner.get(id).is_some_and(|(_, u)| u == user) {
            inner.owner.remove(id);
            if let Some((list, _)) = inner.users.get_mut(user) {
                list.retain(|s| s != id);
            }
        }
    }

    /// Sessions remembered in all (for tests and the benchmark).
    pub fn len(&self) -> usize {
        self.lock().owner.len()
    }

    /// No session remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Inner {
    fn forget_idlest_user(&mut self) {
        let idlest = self
            .users
            .iter()
            .min_by_key(|(_, (_, active))| *active)
            .map(|(u, _)| u.clone());
        if let Some(u) = idlest
            && let Some((list, _)) = self.users.remove(&u)
        {
            for id in list {
                self.owner.remove(&id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_belongs_to_the_user_and_gateway_that_opened_it() {
        let s = Sessions::default();
        assert!(s.opened("g", "ada", "s1"));
        assert_eq!(s.check("g", "ada", "s1"), Ownership::Mine);
        assert_eq!(s.check("g", "bob", "s1"), Ownership::NotMine);
        assert_eq!(s.check("h", "ada", "s1"), Ownership::NotMine);
        assert_eq!(s.check("g", "ada", "never-seen"), Ownership::Unknown);
        assert!(!s.opened("g", "bob", "s1"), "not taken over");
        s.closed("bob", "s1");
        assert_eq!(
            s.check("g", "ada", "s1"),
            Ownership::Mine,
            "only the owner closes"
        );
        s.closed("ada", "s1");
        assert!(s.is_empty());
    }

    #[test]
    fn sessions_and_users_are_bounded_oldest_first() {
        let s = Sessions::default();
        for i in 0..SESSIONS_PER_USER + 3 {
            s.opened("g", "ada", &format!("s{i}"));
        }
        assert_eq!(s.len(), SESSIONS_PER_USER);
        assert_eq!(s.check("g", "ada", "s0"), Ownership::Unknown);
        assert_eq!(
            s.check("g", "ada", &format!("s{}", SESSIONS_PER_USER + 2)),
            Ownership::Mine
        );
        for u in 0..USERS + 1 {
            s.opened("g", &format!("user{u}"), &format!("u{u}"));
        }
        assert!(s.lock().users.len() <= USERS);
        assert_eq!(
            s.check("g", &format!("user{USERS}"), &format!("u{USERS}")),
            Ownership::Mine
        );
    }
}
