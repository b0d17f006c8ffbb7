//! The lists a server declares, each walked to its end once (`tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`): `capabilities-served`, `tools-list`,
//! `prompts-list`, `resources-list` and `pagination-terminates` are judged from the walks; the
//! lists of undeclared capabilities are asked once each for `undeclared-capability-error`;
//! `pagination-invalid-cursor` sends a cursor the server never handed out.
//!
//! A declared list answered with -32601 (Method not found) is `capabilities-served`'s finding
//! alone: the list's own check and the groups that need the list are skipped, naming it, so one
//! lie is reported once (any other failure of the walk is the list check's).

use crate::run::{Asked, Cx, Failure};
use crate::verdict::{Outcome, Verdict};
use mcpscope_client::ClientError;
use mcpscope_proto::era::INVALID_PARAMS;
use mcpscope_proto::era::METHOD_NOT_FOUND;
use serde_json::{Value, json};

/// The items of each declared list (empty when not declared or the walk failed).
#[derive(Debug, Default)]
pub(crate) struct Lists {
    /// `tools`.
    pub(crate) tools: Vec<Value>,
    /// `prompts`.
    pub(crate) prompts: Vec<Value>,
    /// `resources`.
    pub(crate) resources: Vec<Value>,
    /// `resourceTemplates`.
    pub(crate) templates: Vec<Value>,
    /// Declared capabilities whose list answered -32601: not served at all.
    pub(crate) unserved: Vec<&'static str>,
}

impl Lists {
    /// Why a group of `cap` cannot run when its list is not served, or `None` when it can.
    pub(crate) fn unserved_note(&self, cap: &str) -> Option<String> {
        self.unserved.contains(&cap).then(|| {
            format!("{cap} is declared but not served (-32601): capabilities-served reports it")
        })
    }
}

/// A capability, the list method behind it, its items key and the check that judges the list.
const LISTS: [(&str, &str, &str, &str); 4] = [
    ("tools", "tools/list", "tools", "tools-list"),
    ("prompts", "prompts/list", "prompts", "prompts-list"),
    ("resources", "resources/list", "resources", "resources-list"),
    (
        "resources",
        "resources/templates/list",
        "resourceTemplates",
        "resources-list",
    ),
];

/// Walk every declared list; ask each undeclared one.
pub(crate) async fn run(cx: &Cx) -> Lists {
    let mut lists = Lists::default();
    let mut served = Vec::new();
    let mut broken = Vec::new();
    let mut stops = Vec::new();
    let mut undeclared = Vec::new();
    for (cap, method, key, id) in LISTS {
        if !cx.has(cap) {
            if method != "resources/templates/list" {
                undeclared.push((cap, method));
                cx.skip(
                    id,
                    format!("the server does not declare the {cap} capability"),
                );
            }
            continue;
        }
        let mark = cx.rec.mark();
        match cx.session.list_all(method, key, None).await {
            Ok(listing) => {
                let items = listing.result[key].as_array().cloned().unwrap_or_default();
                if let Some(stop) = &listing.stop {
                    stops.push((method, stop.to_string(), cx.rec.since(mark, 4)));
                }
                cx.pass(
                    id,
                    format!("{method}: {} items in {} pages", items.len(), listing.pages),
                );
                served.push(method);
                match key {
                    "tools" => lists.tools = items,
                    "prompts" => lists.prompts = items,
                    "resources" => lists.resources = items,
                    _ => lists.templates = items,
                }
            }
            Err(e) => {
                // The server's own error is shown as such, not as "no answer".
                let failure = match e {
                    ClientError::Rpc { error, .. } => Failure::Rpc(error),
                    e => Failure::Client(e),
                };
                let not_served =
                    matches!(&failure, Failure::Rpc(error) if error.code == METHOD_NOT_FOUND);
                let evidence = cx.rec.since(mark, 4);
                let asked = Asked {
                    answer: Err(failure),
                    evidence,
                    reproduce: cx.reproduce(method, &json!({})),
                };
                let why = asked
                    .answer
                    .as_ref()
                    .err()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                if not_served && method == "resources/templates/list" {
                    // The resources capability does not promise templates: a server without
                    // any (the Python SDK's low-level server registers no handler) answers
                    // -32601, which every client survives. Worth a look, not a broken promise.
                    cx.add(
                        Verdict::new(
                            id,
                            cx.version(),
                            Outcome::Warn,
                            format!("{method}: {why}; a server without templates can answer an empty list instead"),
                        )
                        .with_evidence(asked.evidence.clone())
                        .with_reproduce(Some(asked.reproduce.clone())),
                    );
                } else if not_served {
                    if !lists.unserved.contains(&cap) {
                        lists.unserved.push(cap);
                    }
                    cx.skip(
                        id,
                        format!("{method}: {why}; capabilities-served reports it"),
                    );
                    broken.push((method, cap, asked));
                } else {
                    cx.broken(
                        id,
                        format!("{method} failed although {cap} is declared: {why}"),
                        Some(&asked),
                    );
                }
            }
        }
    }
    judge_served(cx, &served, &broken);
    judge_stops(cx, &served, stops);
    undeclared_refused(cx, &undeclared).await;
    invalid_cursor(cx, &served).await;
    lists
}

fn judge_served(cx: &Cx, served: &[&str], broken: &[(&str, &str, Asked)]) {
    if let Some((method, cap, asked)) = broken.first() {
        cx.broken(
            "capabilities-served",
            format!("{cap} is declared but {method} is not served"),
            Some(asked),
        );
    } else if served.is_empty() {
        let why = if ["tools", "prompts", "resources"].iter().any(|c| cx.has(c)) {
            "no declared list could be walked (the list checks say why)"
        } else {
            "the server declares no tools, prompts or resources"
        };
        cx.skip("capabilities-served", why);
    } else {
        cx.pass(
            "capabilities-served",
            format!("served: {}", served.join(", ")),
        );
    }
}

fn judge_stops(
    cx: &Cx,
    served: &[&str],
    stops: Vec<(&str, String, Vec<crate::verdict::Evidence>)>,
) {
    if served.is_empty() {
        cx.skip("pagination-terminates", "no list declared");
        return;
    }
    match stops.into_iter().next() {
        Some((method, why, evidence)) => cx.add(
            crate::verdict::Verdict::broken(
                "pagination-terminates",
                cx.version(),
                format!("{method}: {why}"),
            )
            .with_evidence(evidence)
            .with_reproduce(Some(cx.reproduce(method, &json!({})))),
        ),
        None => cx.pass(
            "pagination-terminates",
            format!("{} walked to the end", served.join(", ")),
        ),
    }
}

/// Each list of an undeclared capability should be refused with -32601 (a SHOULD); one answered
/// with a result is a capability served and not declared, which fails (a MUST).
async fn undeclared_refused(cx: &Cx, undeclared: &[(&str, &str)]) {
    if undeclared.is_empty() {
        cx.skip(
            "undeclared-capability-error",
            "the server declares tools, prompts and resources",
        );
        return;
    }
    let mut answered = Vec::new();
    for (cap, method) in undeclared {
        let asked = cx.ask(method, json!({})).await;
        match &asked.answer {
            Err(Failure::Rpc(e)) if e.code == METHOD_NOT_FOUND => {}
            Ok(_) => {
                // Served: not an error code (a SHOULD) but a capability supported and not
                // declared, a MUST — the official suite's sep-2575-server-declares-prompts-in-
                // discover fails it too (docs/checks.md, Agreement with the official suite).
                let msg = format!(
                    "{method} ({cap} not declared) got a result: servers that support {cap} MUST declare the {cap} capability"
                );
                let v = Verdict::new(
                    "undeclared-capability-error",
                    cx.version(),
                    Outcome::Fail,
                    msg,
                )
                .with_evidence(asked.evidence.clone())
                .with_reproduce(Some(asked.reproduce.clone()));
                cx.add(v);
                return;
            }
            Err(f) => {
                answered.push((
                    format!("{method} ({cap} not declared) got {f}, not -32601"),
                    asked,
                ));
            }
        }
    }
    match answered.into_iter().next() {
        Some((msg, asked)) => cx.broken("undeclared-capability-error", msg, Some(&asked)),
        None => cx.pass(
            "undeclared-capability-error",
            format!(
                "refused with -32601: {}",
                undeclared
                    .iter()
                    .map(|(_, m)| *m)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    }
}

/// A cursor the server never handed out should be refused with -32602.
async fn invalid_cursor(cx: &Cx, served: &[&str]) {
    let Some(method) = served.first() else {
        cx.skip("pagination-invalid-cursor", "no list declared");
        return;
    };
    let asked = cx
        .ask(
            method,
            json!({"cursor": "mcpscope-check: a cursor this server never handed out"}),
        )
        .await;
    match &asked.answer {
        Err(Failure::Rpc(e)) if e.code == INVALID_PARAMS => cx.pass(
            "pagination-invalid-cursor",
            format!("{method} refused it with -32602"),
        ),
        Ok(_) => cx.broken(
            "pagination-invalid-cursor",
            format!("{method} answered an invalid cursor with a result (expected -32602)"),
            Some(&asked),
        ),
        Err(f) => cx.broken(
            "pagination-invalid-cursor",
            format!("{method} answered an invalid cursor with {f} (expected -32602)"),
            Some(&asked),
        ),
    }
}
