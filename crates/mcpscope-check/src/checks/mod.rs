//! The check groups, one file per area of the protocol. Each reads the era's session through
//! [`Cx`] and records its verdicts there; [`run_all`] runs them in an order where each group
//! finds what it needs (the lists first: every other group works on the server's own tools,
//! prompts and resources).

pub(crate) mod auth;
mod conduct;
pub(crate) mod frames;
mod http;
mod http_modern;
mod lifecycle;
mod lists;
mod modern;
mod prompts;
mod resources;
mod tools;
mod utilities;

use crate::run::Cx;
pub(crate) use lists::Lists;

/// Every group, in order, on one era's session.
pub(crate) async fn run_all(cx: &Cx) {
    lifecycle::run(cx).await;
    let lists = lists::run(cx).await;
    tools::run(cx, &lists).await;
    prompts::run(cx, &lists).await;
    resources::run(cx, &lists).await;
    utilities::run(cx, &lists).await;
    conduct::run(cx, &lists).await;
    if cx.era == mcpscope_proto::era::Era::Modern {
        modern::run(cx, &lists).await;
    }
    // Last: its requests go beside the session, on connections of their own.
    http::run(cx).await;
    auth::run(&cx.bare(), auth::Start::Connected).await;
}

/// The checks judged from every frame of the era, once the groups are done.
pub(crate) fn judge_frames(cx: &Cx) {
    conduct::judge(cx);
    if cx.era == mcpscope_proto::era::Era::Modern {
        modern::judge(cx);
    }
}
