//! The pending-interaction queue: what the servers' questions (sampling, elicitation, roots,
//! `input_required` rounds) wait for, and a view's answer to one. The queue, its deadlines and
//! what goes back on the wire are the core's (`mcpscope_inspect::interactions`); this only reads
//! the list and hands an answer on.

use super::app;
use crate::error::{ApiError, ApiResult, Json};
use crate::extract::Path;
use crate::state::AppState;
use axum::Router;
use axum::extract::State;
use axum::routing::{get, post};
use mcpscope_inspect::{Answer, Interaction, InteractionClosed};
use serde_json::{Value, json};

/// The interaction routes.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/interactions", get(list))
        .route("/interactions/{id}", post(answer))
}

/// Every interaction still waiting, oldest first, each as its `interactionOpened` event's body.
async fn list(State(s): State<AppState>) -> Json<Value> {
    let waiting: Vec<Interaction> = app(&s).interactions();
    Json(json!({ "interactions": waiting }))
}

/// The answer a view sent: `{"action": "accept", "content": …}`, `{"action": "decline"}` or
/// `{"action": "cancel"}`. Read from a JSON value here, not by the extractor, so a body of the
/// wrong shape is `usage` (400) like every other refused parameter, with the shapes named.
fn answer_of(body: Value) -> ApiResult<Answer> {
    serde_json::from_value(body).map_err(|e| {
        ApiError::usage(format!(
            "the answer is not one of {{\"action\": \"accept\", \"content\": …}}, \
             {{\"action\": \"decline\"}}, {{\"action\": \"cancel\"}}: {e}"
        ))
    })
}

/// Answer interaction `id`: the server gets the wire answer, the view the closed interaction
/// (`interactionClosed`'s body). An id that no longer waits is `not_found`.
async fn answer(
    State(s): State<AppState>,
    Path(id): Path<u64>,
    Json(body): Json<Value>,
) -> ApiResult<Json<InteractionClosed>> {
    let answer = answer_of(body)?;
    Ok(Json(app(&s).answer_interaction(id, answer)?))
}
