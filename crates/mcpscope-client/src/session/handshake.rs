//! The handshake of each era: legacy `initialize` (with the version retry and the HTTP+SSE
//! fallback), modern `server/discover`, and the Auto probe that decides between them (wire
//! reference §2.6), correcting itself when a slow modern server answered the probe late.

use super::{RequestOptions, ServerInfo, Session};
use crate::error::ClientError;
use mcpscope_proto::era::{self, Era, EraPreference, ProbeVerdict};
use mcpscope_proto::method::Method;
use mcpscope_transport::{Connection, Target, TransportError};
use serde_json::{Value, json};
use std::time::Duration;

/// The advice when a pinned 2026-07-28 handshake meets a server of the 2025-11-25 era, in the
/// command line's words; the terminal UI says "press e" instead (`era_advice_for_tui`), the web
/// UI names its Protocol selector (`web/src/utils/format.ts`, `hintForView`).
pub(crate) const TRY_OTHER_ERA: &str = "try --protocol-era legacy or auto";

/// What differs between the eras' handshakes in the [`ServerInfo`] they establish.
struct Connected {
    era: Era,
    protocol_version: String,
    server_info: Value,
    session_id: Option<String>,
}

impl Session {
    pub(super) async fn handshake(&self) -> Result<(), ClientError> {
        let mut notes = Vec::new();
        match self.shared.opts.era {
            EraPreference::Legacy => self.initialize_with_fallback(&mut notes).await,
            EraPreference::Modern => {
                notes.push("protocol era pinned to modern (--protocol-era modern)".into());
                self.discover(&mut notes).await
            }
            EraPreference::Auto => self.probe(&mut notes).await,
        }
    }

    /// Legacy `initialize`; on an HTTP target that refuses Streamable HTTP, fall back to HTTP+SSE.
    async fn initialize_with_fallback(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        match self.initialize(notes).await {
            Err(ClientError::Transport(TransportError::Status { status, .. }))
                if self.shared.opts.sse_fallback && matches!(status, 400 | 404 | 405) =>
            {
                let url = match &*self.shared.target.lock().expect("target lock") {
                    Target::Http { url, headers } => Some((url.clone(), headers.clone())),
                    _ => None,
                };
                let Some((url, headers)) = url else {
                    unreachable!("sse_fallback only for HTTP")
                };
                notes.push(format!(
                    "Streamable HTTP POST answered {status}: falling back to the deprecated HTTP+SSE transport (GET {url})"
                ));
                self.warn(notes.last().cloned().unwrap_or_default(), None);
                self.set_stage(format!("waiting for the endpoint event from GET {url}"));
                self.replace_connection(Target::Sse { url, headers })
                    .await?;
                self.initialize(notes).await
            }
            other => other,
        }
    }

    /// The legacy handshake: `initialize`, check the version, `notifications/initialized`.
    pub(super) async fn initialize(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Legacy;
            st.version = None;
        }
        self.conn().set_protocol_version(None);
        let (result, offered) = self.initialize_exchange(notes).await?;
        let negotiated = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if !era::LEGACY_VERSIONS.contains(&negotiated.as_str()) {
            return Err(ClientError::Protocol(format!(
                "the server answered initialize with protocolVersion {negotiated:?}, which mcpscope does not speak (it speaks {}); per the spec the client disconnects",
                era::LEGACY_VERSIONS.join(", ")
            )));
        }
        if negotiated != offered {
            notes.push(format!(
                "server chose protocol version {negotiated} (we offered {offered})"
            ));
        }
        self.state().version = Some(negotiated.clone());
        let conn = self.conn();
        conn.set_protocol_version(Some(negotiated.clone()));
        self.set_stage("sending notifications/initialized");
        self.notify(Method::NotificationsInitialized.name(), None)
            .await?;
        self.set_stage("opening the standalone GET stream");
        conn.open_get_stream(Duration::from_secs(2)).await;
        let server_info = result.get("serverInfo").cloned().unwrap_or(Value::Null);
        let connected = Connected {
            era: Era::Legacy,
            protocol_version: negotiated,
            server_info,
            session_id: conn.session_id(),
        };
        self.connected(connected, result, notes);
        Ok(())
    }

    /// Send `initialize` at our version; when refused with a list of supported versions, once
    /// more at one we also speak. The result and the version offered last.
    async fn initialize_exchange(
        &self,
        notes: &mut Vec<String>,
    ) -> Result<(Value, String), ClientError> {
        let mut version = era::LEGACY_VERSION.to_string();
        let mut retried = false;
        loop {
            self.set_stage(format!(
                "waiting for the answer to initialize (protocolVersion {version})"
            ));
            let params = json!({
                "protocolVersion": version,
                "capabilities": self.shared.responder.capabilities(Era::Legacy),
                "clientInfo": self.shared.opts.client_info,
            });
            // The handshake is the connect timeout's, not the request timeout's.
            let handshake = RequestOptions {
                timeout: Some(None),
                ..Default::default()
            };
            let error = match self
                .send_once(Method::Initialize.name(), Some(params), &handshake)
                .await
            {
                Ok(r) => return Ok((r, version)),
                Err(ClientError::Rpc { error, .. }) if !retried => error,
                Err(e) => return Err(e),
            };
            let supported = era::supported_versions(&error);
            let Some(v) = era::LEGACY_VERSIONS
                .iter()
                .find(|v| supported.iter().any(|s| s == *v) && **v != version)
            else {
                return Err(ClientError::Rpc {
                    method: Method::Initialize.name().into(),
                    error,
                });
            };
            notes.push(format!(
                "initialize at {version} refused ({error}); retrying at {v}"
            ));
            version = v.to_string();
            retried = true;
        }
    }

    /// The handshake is done: record what it established and say "connected".
    fn connected(&self, c: Connected, result: Value, notes: &[String]) {
        let info = ServerInfo {
            era: c.era,
            protocol_version: c.protocol_version,
            server_info: c.server_info,
            capabilities: result
                .get("capabilities")
                .cloned()
                .unwrap_or_else(|| json!({})),
            instructions: result
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            transport: self
                .shared
                .target
                .lock()
                .expect("target lock")
                .transport_name()
                .to_string(),
            session_id: c.session_id,
            notes: notes.to_vec(),
            handshake_result: result,
        };
        self.state().info = Some(info);
        self.set_stage("connected");
    }

    /// The modern handshake: `server/discover` (with the `-32022` retry inside `request`).
    async fn discover(&self, notes: &mut [String]) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Modern;
            st.version = Some(era::MODERN_VERSION.to_string());
        }
        self.set_stage("waiting for the answer to server/discover");
        // The handshake is the connect timeout's, as `initialize` is: a slow-starting server
        // must not fail `--request-timeout`, which is for the request the user asked for.
        let handshake = RequestOptions {
            timeout: Some(None),
            ..Default::default()
        };
        let result = match self
            .request_with(Method::ServerDiscover.name(), None, &handshake)
            .await
        {
            Ok(r) => r,
            Err(ClientError::Rpc { error, .. }) if error.code == era::METHOD_NOT_FOUND => {
                let e = ClientError::Protocol(format!(
                    "the server does not implement server/discover ({error}): it is probably a legacy server"
                ));
                return Err(ClientError::hinted(e, TRY_OTHER_ERA));
            }
            Err(e) => return Err(self.explain_refused_discover(e)),
        };
        let version = self
            .protocol_version()
            .unwrap_or_else(|| era::MODERN_VERSION.to_string());
        if let ProbeVerdict::Legacy { reason } = era::classify_probe(Ok(&result), &version) {
            return Err(ClientError::hinted(
                ClientError::Protocol(reason),
                TRY_OTHER_ERA,
            ));
        }
        self.finish_modern(result, notes);
        Ok(())
    }

    /// A `server/discover` the user pinned (`--protocol-era modern`, the Protocol selector)
    /// refused with HTTP 400 is what a Streamable HTTP server that speaks only 2025-11-25 answers
    /// a request without a session (the TypeScript SDK v1's "No valid session ID"): the era is
    /// the likely cause, not the network, so the error says so in every view. Auto never gets
    /// here with such an answer: its probe falls back to `initialize`.
    fn explain_refused_discover(&self, e: ClientError) -> ClientError {
        let pinned = self.shared.opts.era == EraPreference::Modern;
        match &e {
            ClientError::Transport(TransportError::Status { status: 400, .. }) if pinned => {
                ClientError::hinted(
                    e,
                    format!(
                        "a server that speaks only 2025-11-25 answers a 2026-07-28 request so: {TRY_OTHER_ERA}"
                    ),
                )
            }
            _ => e,
        }
    }

    fn finish_modern(&self, result: Value, notes: &[String]) {
        let version = self
            .protocol_version()
            .unwrap_or_else(|| era::MODERN_VERSION.to_string());
        let server_info = result
            .get("_meta")
            .and_then(|m| m.get(era::META_SERVER_INFO))
            .or_else(|| result.get("serverInfo"))
            .cloned()
            .unwrap_or(Value::Null);
        let connected = Connected {
            era: Era::Modern,
            protocol_version: version,
            server_info,
            session_id: None,
        };
        self.connected(connected, result, notes);
    }

    /// Auto: probe with `server/discover` and decide (wire reference §2.6).
    async fn probe(&self, notes: &mut Vec<String>) -> Result<(), ClientError> {
        {
            let mut st = self.state();
            st.era = Era::Modern;
            st.version = Some(era::MODERN_VERSION.to_string());
        }
        let is_stdio = matches!(*self.conn(), Connection::Stdio(_));
        let probe_timeout = self.shared.opts.probe_timeout;
        let mut version = era::MODERN_VERSION.to_string();
        let mut reprobed = false;
        loop {
            self.set_stage(format!(
                "probing with server/discover at {version} (Auto mode)"
            ));
            let opts = RequestOptions {
                timeout: Some(Some(probe_timeout)),
                quiet_timeout: true,
                ..Default::default()
            };
            let outcome = self
                .send_once(Method::ServerDiscover.name(), None, &opts)
                .await;
            match probe_verdict(&outcome, &version, is_stdio, probe_timeout) {
                ProbeVerdict::Modern { version: v } => {
                    notes.push(format!(
                        "Auto: server/discover succeeded; speaking modern {v}"
                    ));
                    self.state().version = Some(v);
                    match outcome {
                        Ok(result) => {
                            self.finish_modern(result, notes);
                            return Ok(());
                        }
                        // A recognised modern error (-32020/-32021): modern, but discover must be redone right.
                        Err(_) => return self.discover(notes).await,
                    }
                }
                ProbeVerdict::RetryAt { version: v } if !reprobed => {
                    notes.push(format!(
                        "Auto: server rejected {version} but supports {v}; probing again"
                    ));
                    reprobed = true;
                    version = v.clone();
                    self.state().version = Some(v);
                }
                ProbeVerdict::RetryAt { version: v } => {
                    return Err(ClientError::Protocol(format!(
                        "server rejected protocol version {v} twice during the Auto probe"
                    )));
                }
                ProbeVerdict::Legacy { reason } => {
                    return self.fall_back_to_legacy(&reason, is_stdio, notes).await;
                }
                ProbeVerdict::NotEvidence { .. } => {
                    return Err(outcome
                        .err()
                        .unwrap_or_else(|| ClientError::Protocol("probe failed".into())));
                }
            }
        }
    }

    /// The probe says legacy: `initialize` (restarting a stdio server the probe killed) — unless
    /// `initialize` is refused by a server that answered the probe after all, too late: a
    /// slow-starting modern server (npx, a loaded machine), spoken to in the modern era.
    async fn fall_back_to_legacy(
        &self,
        reason: &str,
        is_stdio: bool,
        notes: &mut Vec<String>,
    ) -> Result<(), ClientError> {
        notes.push(format!(
            "Auto: legacy server ({reason}); falling back to initialize"
        ));
        // Normal for every server of the 2025-11-25 era: a note, not a warning.
        self.note(notes.last().cloned().unwrap_or_default());
        if is_stdio && self.state().closed.is_some() {
            // The probe killed the server (rmcp-based servers exit on a pre-initialize
            // request): start it again for the legacy handshake.
            let target = self.shared.target.lock().expect("target lock").clone();
            notes.push("restarted the server process after the probe".into());
            self.replace_connection(target).await?;
        }
        let legacy = self.initialize_with_fallback(notes).await;
        let late = self.state().late_modern.take();
        match (legacy, late) {
            (Err(e @ ClientError::Rpc { .. }), Some(result)) => {
                notes.push(format!(
                    "Auto: initialize was refused ({e}) and the server had answered server/discover as a modern server after the probe timeout: speaking modern"
                ));
                self.warn(notes.last().cloned().unwrap_or_default(), None);
                {
                    let mut st = self.state();
                    st.era = Era::Modern;
                    st.version = Some(era::MODERN_VERSION.to_string());
                }
                self.finish_modern(result, notes);
                Ok(())
            }
            (legacy, _) => legacy,
        }
    }
}

/// What one probe's outcome says about the server's era (wire reference §2.6). Over stdio,
/// silence or an exit is legacy evidence; over HTTP a 4xx without a modern JSON-RPC error is.
fn probe_verdict(
    outcome: &Result<Value, ClientError>,
    version: &str,
    is_stdio: bool,
    probe_timeout: Duration,
) -> ProbeVerdict {
    match outcome {
        Ok(result) => era::classify_probe(Ok(result), version),
        Err(ClientError::Rpc { error, .. }) => era::classify_probe(Err(error), version),
        Err(ClientError::Timeout { .. }) if is_stdio => ProbeVerdict::Legacy {
            reason: format!(
                "no answer to server/discover within {} ms (--probe-timeout)",
                probe_timeout.as_millis()
            ),
        },
        Err(ClientError::Closed(reason)) if is_stdio => ProbeVerdict::Legacy {
            reason: format!("the server exited on server/discover ({reason})"),
        },
        Err(ClientError::Transport(TransportError::Status { status, .. }))
            if (400..500).contains(status) =>
        {
            ProbeVerdict::Legacy {
                reason: format!(
                    "server/discover answered HTTP {status} without a modern JSON-RPC error"
                ),
            }
        }
        Err(e) => ProbeVerdict::NotEvidence {
            reason: e.to_string(),
        },
    }
}
