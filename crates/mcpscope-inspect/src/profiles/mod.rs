//! Testing Profiles (003's "Sampling Request"): named strategies that answer a server's
//! `sampling/createMessage` — a legacy server request or a sampling entry of a 2026-07-28
//! `input_required` round — the way a mock LLM would, so a server author can exercise a sampling
//! tool again and again without typing the answer each time.
//!
//! - [`Profile`] and [`Strategy`]: fixed text, echo the last user message, reject, delay then
//!   answer, a tool-use answer (2025-11-25 sampling with tools), each with a model name and a stop
//!   reason; [`answer`](answer::answer) turns one into the `CreateMessageResult` (same shape in
//!   both eras) or a rejection.
//! - [`Profiles`]: the persisted book (`profiles.json` beside the history, [`book`] says why
//!   there) with each server's [`ActiveProfile`]: which profile, **Auto-respond** (use it), and
//!   **without stopping** (the policy answers by itself, after the profile's delay; otherwise the
//!   request waits for its card, pre-filled with the profile's answer so Send Response is one
//!   click).
//! - [`ProfilePolicy`]: the web UI's sampling policy (`WaitForDialogs::sampling`). A delayed
//!   answer stays pending, so the card shows meanwhile and a person who answers first wins; the
//!   closed interaction's reason names the profile.
//! - The [`Inspector`] methods the views call: the CRUD, the choice per server, the answer a
//!   profile would give to a waiting request, and answering one with it.

mod answer;
mod book;

pub use answer::{ECHO_CAP, ECHO_SCAN, default_stop_reason, last_user_text};
pub use book::Profiles;

use crate::error::{Error, Result};
use crate::interactions::{
    Answer, Decision, Interaction, InteractionClosed, InteractionKind, Policy,
};
use crate::state::Inspector;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use ts_rs::TS;

/// The file's name, beside `history.sqlite`.
pub const PROFILES_FILE: &str = "profiles.json";
/// The model name when a profile leaves it blank (`model` is required in the result).
pub const DEFAULT_MODEL: &str = "mcpscope-profile";
/// The longest delay: the default interaction timeout (a longer one would always time out).
pub const MAX_DELAY_MS: u64 = 300_000;
/// At most this many profiles.
pub const MAX_PROFILES: usize = 100;
/// At most this many characters in a profile's name.
pub const MAX_NAME_CHARS: usize = 100;
/// At most this many bytes of answer text.
pub const MAX_TEXT_BYTES: usize = 256 * 1024;
/// At most this many bytes of a tool-use answer's `input`, as JSON.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// At most this many characters in a model name, a stop reason or a tool name.
pub const MAX_FIELD_CHARS: usize = 200;

/// How a profile answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Strategy {
    /// Answer with `text`.
    Fixed {
        /// The assistant's text.
        text: String,
    },
    /// Answer with the text of the request's last user message (at most [`ECHO_CAP`] bytes).
    Echo,
    /// Refuse: the server gets the client's error (`-1`, rejected).
    Reject,
    /// Wait `ms` (at most [`MAX_DELAY_MS`]) then answer with `text`; the request's card shows
    /// meanwhile, and a person may answer first.
    Delay {
        /// How long to wait, in milliseconds.
        ms: u64,
        /// The assistant's text.
        text: String,
    },
    /// Answer with a `tool_use` block naming `tool` (one of the request's `tools`; blank: its
    /// first) with `input`; the stop reason defaults to `toolUse`.
    ToolUse {
        /// The tool's name.
        #[serde(default)]
        tool: String,
        /// Its arguments (an object).
        #[ts(type = "Json")]
        input: Value,
    },
}

/// A named Testing Profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Its name (unique).
    #[serde(default)]
    pub name: String,
    /// How it answers.
    pub strategy: Strategy,
    /// The model name the result gives (blank: `mcpscope-profile`).
    #[serde(default)]
    pub model: String,
    /// The result's `stopReason`; absent: the strategy's default (`endTurn`, `toolUse` for a
    /// tool use); empty: left out of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stop_reason: Option<String>,
}

impl Profile {
    /// How long the policy waits before it answers.
    pub fn delay(&self) -> Duration {
        match self.strategy {
            Strategy::Delay { ms, .. } => Duration::from_millis(ms.min(MAX_DELAY_MS)),
            _ => Duration::ZERO,
        }
    }
}

/// A server's Testing Profile choice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ActiveProfile {
    /// The active profile's name; null: none.
    #[serde(default)]
    pub profile: Option<String>,
    /// Answer this server's sampling requests with the profile.
    #[serde(default)]
    pub auto_respond: bool,
    /// With Auto-respond: answer without stopping at the card (after the profile's delay). Off:
    /// the card waits, pre-filled with the profile's answer.
    #[serde(default)]
    pub without_stopping: bool,
}

/// `GET /api/profiles`: every profile, each server's choice, and where they are kept.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfilesView {
    /// Every profile, in the order they were made.
    pub profiles: Vec<Profile>,
    /// Each server's choice (servers without one are left out).
    pub servers: BTreeMap<String, ActiveProfile>,
    /// The file they are kept in; null: in memory only.
    pub file: Option<String>,
    /// Why the file could not be read (changes are refused until it is fixed).
    pub problem: Option<String>,
}

/// What the active profile answers to one waiting sampling request (the card's pre-fill and its
/// Auto-respond button).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProfileAnswer {
    /// The profile.
    pub profile: Profile,
    /// The server's choice.
    pub active: ActiveProfile,
    /// The answer as a view sends it: `{action: "accept", content}` or `{action: "decline"}`.
    #[ts(type = "Json")]
    pub answer: Value,
    /// Why the profile cannot answer this request as it says (it declines instead).
    pub refused: Option<String>,
    /// The delay the policy waits before it answers by itself, in milliseconds.
    pub delay_ms: u64,
}

/// The closed interaction's reason when `name` answered.
pub fn answered_by(name: &str) -> String {
    format!("answered by Testing Profile «{name}»")
}

/// At most `max` characters of `s` (names in messages).
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Why `p` cannot be kept, naming the field; `Ok` when it can.
pub fn check(p: &Profile) -> std::result::Result<(), String> {
    let name = p.name.trim();
    if name.is_empty() {
        return Err("a profile needs a name".into());
    }
    if name != p.name || p.name.chars().any(char::is_control) {
        return Err("the name has leading or trailing spaces or control characters".into());
    }
    if p.name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "the name is longer than {MAX_NAME_CHARS} characters"
        ));
    }
    let field = |what: &str, v: &str| match v.chars().count() > MAX_FIELD_CHARS {
        true => Err(format!(
            "{what} is longer than {MAX_FIELD_CHARS} characters"
        )),
        false => Ok(()),
    };
    field("model", &p.model)?;
    field("stopReason", p.stop_reason.as_deref().unwrap_or(""))?;
    match &p.strategy {
        Strategy::Fixed { text } | Strategy::Delay { text, .. } if text.len() > MAX_TEXT_BYTES => {
            return Err(format!("text is longer than {MAX_TEXT_BYTES} bytes"));
        }
        Strategy::Delay { ms, .. } if *ms > MAX_DELAY_MS => {
            return Err(format!(
                "delay {ms} ms is longer than {MAX_DELAY_MS} ms (the interaction timeout: the request would time out first)"
            ));
        }
        Strategy::ToolUse { tool, input } => {
            field("tool", tool)?;
            if !input.is_object() {
                return Err("input must be a JSON object (the tool's arguments)".into());
            }
            if input.to_string().len() > MAX_INPUT_BYTES {
                return Err(format!("input is larger than {MAX_INPUT_BYTES} bytes"));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The decision `profile` makes for sampling request `id` with `params`: its answer after its
/// delay, or a decline at once that says why it could not answer.
fn decision(profile: &Profile, params: &Value, id: u64) -> Decision {
    match answer::answer(profile, params, id) {
        Ok(answer) => Decision::Answer {
            answer,
            after: profile.delay(),
            by: answered_by(&profile.name),
        },
        Err(why) => Decision::Answer {
            answer: Answer::Decline,
            after: Duration::ZERO,
            by: format!(
                "Testing Profile «{}» could not answer: {why}; declined",
                profile.name
            ),
        },
    }
}

/// The web UI's sampling policy: a server whose active profile has Auto-respond and "without
/// stopping" on is answered by it; every other sampling request waits for its card.
#[derive(Debug, Clone)]
pub struct ProfilePolicy {
    profiles: Arc<Profiles>,
}

impl ProfilePolicy {
    /// The policy over `profiles`.
    pub fn new(profiles: Arc<Profiles>) -> ProfilePolicy {
        ProfilePolicy { profiles }
    }
}

impl Policy for ProfilePolicy {
    fn decide(&self, i: &Interaction) -> Decision {
        if i.kind != InteractionKind::Sampling {
            return Decision::Wait;
        }
        self.decide_for(&i.server, &i.payload, i.id)
    }
}

impl ProfilePolicy {
    /// The decision for sampling request `id` of `server` with `params`.
    fn decide_for(&self, server: &str, params: &Value, id: u64) -> Decision {
        match self.profiles.active(server) {
            Some((p, a)) if a.auto_respond && a.without_stopping => decision(&p, params, id),
            _ => Decision::Wait,
        }
    }
}

/// The view's form of an answer (what `POST /api/interactions/{id}` takes).
fn answer_body(a: &Answer) -> Value {
    match a {
        Answer::Accept(content) => json!({"action": "accept", "content": content}),
        Answer::Decline => json!({"action": "decline"}),
        Answer::Cancel => json!({"action": "cancel"}),
    }
}

impl Inspector {
    fn profiles_book(&self) -> Arc<Profiles> {
        self.options.profiles.clone()
    }

    /// Every Testing Profile and each server's choice.
    pub fn profiles(&self) -> ProfilesView {
        self.options.profiles.view()
    }

    /// Create or replace the profile `name`; a `profile.name` other than `name` renames it
    /// (servers that chose it follow). Returns it as kept.
    pub async fn put_profile(&self, name: &str, mut profile: Profile) -> Result<Profile> {
        if profile.name.is_empty() {
            profile.name = name.to_string();
        }
        check(&profile).map_err(Error::usage)?;
        let name = name.to_string();
        let book = self.profiles_book();
        blocking(move || book.change(|doc| put(doc, &name, profile))).await
    }

    /// Delete the profile `name`; servers that chose it are left with none.
    pub async fn delete_profile(&self, name: &str) -> Result<()> {
        let name = name.to_string();
        let book = self.profiles_book();
        blocking(move || {
            book.change(|doc| {
                let before = doc.profiles.len();
                doc.profiles.retain(|p| p.name != name);
                if doc.profiles.len() == before {
                    return Err(no_profile(&name));
                }
                for choice in doc.servers.values_mut() {
                    if choice.profile.as_deref() == Some(name.as_str()) {
                        choice.profile = None;
                    }
                }
                doc.servers.retain(|_, c| *c != ActiveProfile::default());
                Ok(())
            })
        })
        .await
    }

    /// `server`'s Testing Profile choice.
    pub async fn active_profile(&self, server: &str) -> Result<ActiveProfile> {
        self.known_server(server).await?;
        Ok(self.options.profiles.choice(server))
    }

    /// Choose `server`'s profile and its switches (a profile that does not exist is refused).
    pub async fn set_active_profile(
        &self,
        server: &str,
        choice: ActiveProfile,
    ) -> Result<ActiveProfile> {
        self.known_server(server).await?;
        let server = server.to_string();
        let book = self.profiles_book();
        blocking(move || {
            book.change(|doc| {
                if let Some(name) = &choice.profile
                    && !doc.profiles.iter().any(|p| &p.name == name)
                {
                    return Err(no_profile(name));
                }
                if choice == ActiveProfile::default() {
                    doc.servers.remove(&server);
                } else {
                    doc.servers.insert(server, choice.clone());
                }
                Ok(choice)
            })
        })
        .await
    }

    /// What `server`'s active profile answers to the waiting sampling interaction `id`.
    pub fn profile_answer(&self, id: u64) -> Result<ProfileAnswer> {
        let i = self.waiting_sampling(id)?;
        let (profile, active) = self.options.profiles.active(&i.server).ok_or_else(|| {
            Error::not_found(format!(
                "server {:?} has no active Testing Profile; choose one in Testing Profiles",
                i.server
            ))
        })?;
        let (answer, refused) = match answer::answer(&profile, &i.payload, i.id) {
            Ok(a) => (a, None),
            Err(why) => (Answer::Decline, Some(why)),
        };
        Ok(ProfileAnswer {
            delay_ms: profile.delay().as_millis() as u64,
            profile,
            active,
            answer: answer_body(&answer),
            refused,
        })
    }

    /// Answer the waiting sampling interaction `id` with its server's active profile, now (the
    /// card's Auto-respond button); the closed event names the profile.
    pub fn answer_with_profile(&self, id: u64) -> Result<InteractionClosed> {
        let i = self.waiting_sampling(id)?;
        let (profile, _) = self.options.profiles.active(&i.server).ok_or_else(|| {
            Error::not_found(format!(
                "server {:?} has no active Testing Profile",
                i.server
            ))
        })?;
        let Decision::Answer { answer, by, .. } = decision(&profile, &i.payload, i.id) else {
            unreachable!("a profile always decides");
        };
        self.interactions
            .answer_by(id, &answer, by)
            .ok_or_else(|| Error::not_found(format!("interaction {id} is no longer waiting")))
    }

    /// The waiting interaction `id`, which must be a sampling request.
    fn waiting_sampling(&self, id: u64) -> Result<Interaction> {
        let i = self
            .interactions
            .pending()
            .into_iter()
            .find(|i| i.id == id)
            .ok_or_else(|| {
                Error::not_found(format!(
                    "no interaction {id} is waiting: it was answered, timed out or abandoned"
                ))
            })?;
        if i.kind != InteractionKind::Sampling {
            return Err(Error::usage(format!(
                "interaction {id} is {}, not sampling: Testing Profiles answer sampling only",
                i.method
            )));
        }
        Ok(i)
    }

    async fn known_server(&self, server: &str) -> Result<()> {
        match self.catalog.lock().await.get(server) {
            Some(_) => Ok(()),
            None => Err(Error::not_found(format!(
                "no server {server:?} in the catalog"
            ))),
        }
    }
}

fn no_profile(name: &str) -> Error {
    Error::not_found(format!("no Testing Profile named {:?}", clip(name, 100)))
}

/// Create or replace (or rename) `name` in `doc` with `profile`.
fn put(doc: &mut book::Doc, name: &str, profile: Profile) -> Result<Profile> {
    let at = doc.profiles.iter().position(|p| p.name == name);
    if profile.name != name {
        let Some(at) = at else {
            return Err(no_profile(name));
        };
        if doc.profiles.iter().any(|p| p.name == profile.name) {
            return Err(Error::conflict(format!(
                "a Testing Profile named {:?} exists already",
                profile.name
            )));
        }
        for choice in doc.servers.values_mut() {
            if choice.profile.as_deref() == Some(name) {
                choice.profile = Some(profile.name.clone());
            }
        }
        doc.profiles[at] = profile.clone();
        return Ok(profile);
    }
    match at {
        Some(at) => doc.profiles[at] = profile.clone(),
        None if doc.profiles.len() >= MAX_PROFILES => {
            return Err(Error::usage(format!(
                "{MAX_PROFILES} Testing Profiles exist: delete one first"
            )));
        }
        None => doc.profiles.push(profile.clone()),
    }
    Ok(profile)
}

/// Run `f` (which writes the file) off the async threads.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::internal(format!("the profiles writer failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(name: &str, text: &str) -> Profile {
        Profile {
            name: name.into(),
            strategy: Strategy::Fixed { text: text.into() },
            model: String::new(),
            stop_reason: None,
        }
    }

    /// What the demo's `sample` tool asks.
    fn params() -> Value {
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5})
    }

    fn book_with(choice: ActiveProfile, profile: Profile) -> Arc<Profiles> {
        let p = Arc::new(Profiles::in_memory());
        p.change(|d| {
            d.profiles.push(profile);
            d.servers.insert("demo".into(), choice);
            Ok(())
        })
        .unwrap();
        p
    }

    #[test]
    fn the_policy_answers_only_with_auto_respond_and_without_stopping() {
        let on = |auto_respond, without_stopping| ActiveProfile {
            profile: Some("Quick".into()),
            auto_respond,
            without_stopping,
        };
        for (a, w, answers) in [
            (true, true, true),
            (true, false, false),
            (false, true, false),
        ] {
            let policy = ProfilePolicy::new(book_with(on(a, w), fixed("Quick", "mock")));
            let d = policy.decide_for("demo", &params(), 3);
            assert_eq!(
                matches!(d, Decision::Answer { .. }),
                answers,
                "{a} {w}: {d:?}"
            );
            // Another server has no profile: its card waits.
            assert_eq!(policy.decide_for("other", &params(), 3), Decision::Wait);
        }
        let policy = ProfilePolicy::new(book_with(on(true, true), fixed("Quick", "mock")));
        let Decision::Answer { answer, after, by } = policy.decide_for("demo", &params(), 3) else {
            panic!("answers");
        };
        assert_eq!(after, Duration::ZERO);
        assert_eq!(by, "answered by Testing Profile «Quick»");
        assert_eq!(
            answer,
            Answer::Accept(
                json!({"role": "assistant", "content": {"type": "text", "text": "mock"},
                                  "model": DEFAULT_MODEL, "stopReason": "endTurn"})
            )
        );
    }

    #[test]
    fn a_delay_profile_answers_after_its_delay_and_a_refused_tool_use_declines_at_once() {
        let on = ActiveProfile {
            profile: Some("Slow".into()),
            auto_respond: true,
            without_stopping: true,
        };
        let slow = Profile {
            name: "Slow".into(),
            strategy: Strategy::Delay {
                ms: 1500,
                text: "late".into(),
            },
            model: "m".into(),
            stop_reason: None,
        };
        let d = ProfilePolicy::new(book_with(on.clone(), slow)).decide_for("demo", &params(), 3);
        assert!(
            matches!(d, Decision::Answer { after, .. } if after == Duration::from_millis(1500))
        );
        let tool = Profile {
            name: "Slow".into(),
            strategy: Strategy::ToolUse {
                tool: "x".into(),
                input: json!({}),
            },
            model: "m".into(),
            stop_reason: None,
        };
        let Decision::Answer { answer, after, by } =
            ProfilePolicy::new(book_with(on, tool)).decide_for("demo", &params(), 3)
        else {
            panic!("decides");
        };
        assert_eq!((answer, after), (Answer::Decline, Duration::ZERO));
        assert!(
            by.contains("could not answer") && by.contains("offers no tools"),
            "{by}"
        );
    }

    #[test]
    fn profiles_are_checked_before_they_are_kept() {
        assert!(check(&fixed("ok", "x")).is_ok());
        assert!(check(&fixed("", "x")).unwrap_err().contains("needs a name"));
        assert!(check(&fixed(" pad", "x")).is_err());
        assert!(check(&fixed(&"n".repeat(101), "x")).is_err());
        assert!(check(&fixed("big", &"x".repeat(MAX_TEXT_BYTES + 1))).is_err());
        let mut slow = fixed("slow", "x");
        slow.strategy = Strategy::Delay {
            ms: MAX_DELAY_MS + 1,
            text: "x".into(),
        };
        assert!(check(&slow).unwrap_err().contains("time out"));
        let mut tool = fixed("tool", "x");
        tool.strategy = Strategy::ToolUse {
            tool: "t".into(),
            input: json!([1]),
        };
        assert!(check(&tool).unwrap_err().contains("object"));
    }

    #[test]
    fn put_creates_replaces_and_renames_and_the_choices_follow() {
        let mut doc = book::Doc::default();
        put(&mut doc, "A", fixed("A", "1")).unwrap();
        put(&mut doc, "A", fixed("A", "2")).unwrap();
        assert_eq!(doc.profiles.len(), 1);
        doc.servers.insert(
            "demo".into(),
            ActiveProfile {
                profile: Some("A".into()),
                auto_respond: true,
                without_stopping: false,
            },
        );
        put(&mut doc, "A", fixed("B", "2")).unwrap();
        assert_eq!(doc.profiles[0].name, "B");
        assert_eq!(doc.servers["demo"].profile.as_deref(), Some("B"));
        put(&mut doc, "C", fixed("C", "3")).unwrap();
        let taken = put(&mut doc, "C", fixed("B", "3")).unwrap_err();
        assert_eq!(taken.code, mcpscope_proto::error_code::ErrorCode::Conflict);
        let gone = put(&mut doc, "Z", fixed("Y", "3")).unwrap_err();
        assert_eq!(gone.code, mcpscope_proto::error_code::ErrorCode::NotFound);
    }

    #[test]
    fn the_wire_form_is_tagged_by_kind() {
        let p: Profile = serde_json::from_value(json!({
            "name": "T", "strategy": {"kind": "toolUse", "tool": "get_weather", "input": {"city": "Paris"}},
            "model": "m", "stopReason": "toolUse"}))
        .unwrap();
        assert_eq!(
            p.strategy,
            Strategy::ToolUse {
                tool: "get_weather".into(),
                input: json!({"city": "Paris"})
            }
        );
        let d: Profile =
            serde_json::from_value(json!({"strategy": {"kind": "delay", "ms": 10, "text": "x"}}))
                .unwrap();
        assert_eq!(d.delay(), Duration::from_millis(10));
        assert_eq!(
            serde_json::to_value(&d).unwrap(),
            json!({"name": "", "strategy": {"kind": "delay", "ms": 10, "text": "x"}, "model": ""})
        );
    }
}
