//! Every MCP method and notification of both revisions, as a type, with what the protocol says
//! about each: who sends it, in which era it exists, the key of its list, the `params` field that
//! names its target, whether it may answer `input_required`, and its `$defs` names in `schema.json`.
//!
//! One table, [`Method::row`], so a fact about a method is written once; the tests hold it to the
//! vendored `spec/*/schema.json` (every method there is here and every method here is there).
//!
//! ```
//! use mcpscope_proto::method::Method;
//! let m: Method = "resources/templates/list".parse().unwrap();
//! assert_eq!(m.list_key(), Some("resourceTemplates"));
//! assert_eq!(Method::ResourcesRead.name_field(), Some("uri"));
//! assert!(Method::ToolsCall.may_require_input());
//! assert!("tools/call" == Method::ToolsCall);
//! ```

use crate::era::Era;
use std::fmt;

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sender {
    /// Client → server.
    Client,
    /// Server → client.
    Server,
    /// Either side (legacy `ping`, `notifications/cancelled`, `notifications/progress`, tasks).
    Either,
}

/// Whether a method is a request (with an `id`, answered) or a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A JSON-RPC request.
    Request,
    /// A JSON-RPC notification.
    Notification,
}

/// Where a method lives in the modern revision (2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Modern {
    /// Removed (or never there).
    Absent,
    /// In the core schema.
    Core,
    /// Only as an entry of `inputRequests` in an `input_required` result (no `jsonrpc`/`id`).
    InputRequest,
    /// In the `io.modelcontextprotocol/tasks` extension's schema.
    TasksExtension,
}

/// What the protocol says about one method: a row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The wire name (`tools/list`).
    pub name: &'static str,
    /// Request or notification.
    pub kind: Kind,
    /// Who sends it.
    pub sender: Sender,
    /// In the legacy revision (2025-11-25).
    pub legacy: bool,
    /// Where it is in the modern revision.
    pub modern: Modern,
    /// For a paginated list: the result's key holding the items (`tools`).
    pub list_key: Option<&'static str>,
    /// The `params` field naming the target, mirrored into modern HTTP's `Mcp-Name`.
    pub name_field: Option<&'static str>,
    /// May answer `input_required` in the modern era.
    pub may_require_input: bool,
    /// The `$defs` name of the request or notification in `schema.json`.
    pub def: &'static str,
    /// The `$defs` name of its result, for a request.
    pub result_def: Option<&'static str>,
}

macro_rules! methods {
    ($($variant:ident),* $(,)?) => {
        /// An MCP method or notification, of either revision.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Method {
            $(
                #[allow(missing_docs)] // the wire name in `row()` is its documentation
                $variant,
            )*
        }

        impl Method {
            /// Every method, in the order of the enum.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];
        }
    };
}

methods!(
    Initialize,
    Ping,
    ServerDiscover,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    SubscriptionsListen,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    LoggingSetLevel,
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
    SamplingCreateMessage,
    ElicitationCreate,
    RootsList,
    NotificationsInitialized,
    NotificationsCancelled,
    NotificationsProgress,
    NotificationsMessage,
    NotificationsResourcesUpdated,
    NotificationsResourcesListChanged,
    NotificationsToolsListChanged,
    NotificationsPromptsListChanged,
    NotificationsRootsListChanged,
    NotificationsTasksStatus,
    NotificationsTasks,
    NotificationsElicitationComplete,
    NotificationsSubscriptionsAcknowledged,
);

/// A request row: most facts default to "none".
const fn request(
    name: &'static str,
    sender: Sender,
    legacy: bool,
    modern: Modern,
    def: &'static str,
    result_def: &'static str,
) -> Row {
    Row {
        name,
        kind: Kind::Request,
        sender,
        legacy,
        modern,
        list_key: None,
        name_field: None,
        may_require_input: false,
        def,
        result_def: Some(result_def),
    }
}

/// A notification row.
const fn notification(
    name: &'static str,
    sender: Sender,
    legacy: bool,
    modern: Modern,
    def: &'static str,
) -> Row {
    Row {
        name,
        kind: Kind::Notification,
        sender,
        legacy,
        modern,
        list_key: None,
        name_field: None,
        may_require_input: false,
        def,
        result_def: None,
    }
}

impl Row {
    const fn list(mut self, key: &'static str) -> Row {
        self.list_key = Some(key);
        self
    }

    const fn named_by(mut self, field: &'static str) -> Row {
        self.name_field = Some(field);
        self
    }

    const fn input(mut self) -> Row {
        self.may_require_input = true;
        self
    }
}

use Modern::{Absent, Core, InputRequest, TasksExtension};
use Sender::{Client, Either, Server};

impl Method {
    /// The table: everything the protocol says about `self` (docs/mcp-wire-reference.md §1.4).
    /// One arm per method; long because the protocol has this many methods, not because of logic.
    pub const fn row(self) -> Row {
        use Method as M;
        match self {
            M::Initialize => request(
                "initialize",
                Client,
                true,
                Absent,
                "InitializeRequest",
                "InitializeResult",
            ),
            M::Ping => request("ping", Either, true, Absent, "PingRequest", "EmptyResult"),
            M::ServerDiscover => request(
                "server/discover",
                Client,
                false,
                Core,
                "DiscoverRequest",
                "DiscoverResult",
            ),
            M::ToolsList => request(
                "tools/list",
                Client,
                true,
                Core,
                "ListToolsRequest",
                "ListToolsResult",
            )
            .list("tools"),
            M::ToolsCall => request(
                "tools/call",
                Client,
                true,
                Core,
                "CallToolRequest",
                "CallToolResult",
            )
            .named_by("name")
            .input(),
            M::ResourcesList => request(
                "resources/list",
                Client,
                true,
                Core,
                "ListResourcesRequest",
                "ListResourcesResult",
            )
            .list("resources"),
            M::ResourcesTemplatesList => request(
                "resources/templates/list",
                Client,
                true,
                Core,
                "ListResourceTemplatesRequest",
                "ListResourceTemplatesResult",
            )
            .list("resourceTemplates"),
            M::ResourcesRead => request(
                "resources/read",
                Client,
                true,
                Core,
                "ReadResourceRequest",
                "ReadResourceResult",
            )
            .named_by("uri")
            .input(),
            M::ResourcesSubscribe => request(
                "resources/subscribe",
                Client,
                true,
                Absent,
                "SubscribeRequest",
                "EmptyResult",
            ),
            M::ResourcesUnsubscribe => request(
                "resources/unsubscribe",
                Client,
                true,
                Absent,
                "UnsubscribeRequest",
                "EmptyResult",
            ),
            M::SubscriptionsListen => request(
                "subscriptions/listen",
                Client,
                false,
                Core,
                "SubscriptionsListenRequest",
                "SubscriptionsListenResult",
            ),
            M::PromptsList => request(
                "prompts/list",
                Client,
                true,
                Core,
                "ListPromptsRequest",
                "ListPromptsResult",
            )
            .list("prompts"),
            M::PromptsGet => request(
                "prompts/get",
                Client,
                true,
                Core,
                "GetPromptRequest",
                "GetPromptResult",
            )
            .named_by("name")
            .input(),
            M::CompletionComplete => request(
                "completion/complete",
                Client,
                true,
                Core,
                "CompleteRequest",
                "CompleteResult",
            ),
            M::LoggingSetLevel => request(
                "logging/setLevel",
                Client,
                true,
                Absent,
                "SetLevelRequest",
                "EmptyResult",
            ),
            M::TasksGet => request(
                "tasks/get",
                Either,
                true,
                TasksExtension,
                "GetTaskRequest",
                "GetTaskResult",
            )
            .named_by("taskId"),
            M::TasksResult => request(
                "tasks/result",
                Either,
                true,
                Absent,
                "GetTaskPayloadRequest",
                "GetTaskPayloadResult",
            ),
            M::TasksList => request(
                "tasks/list",
                Either,
                true,
                Absent,
                "ListTasksRequest",
                "ListTasksResult",
            )
            .list("tasks"),
            M::TasksCancel => request(
                "tasks/cancel",
                Either,
                true,
                TasksExtension,
                "CancelTaskRequest",
                "CancelTaskResult",
            )
            .named_by("taskId"),
            M::TasksUpdate => request(
                "tasks/update",
                Client,
                false,
                TasksExtension,
                "UpdateTaskRequest",
                "UpdateTaskResult",
            )
            .named_by("taskId"),
            M::SamplingCreateMessage => request(
                "sampling/createMessage",
                Server,
                true,
                InputRequest,
                "CreateMessageRequest",
                "CreateMessageResult",
            ),
            M::ElicitationCreate => request(
                "elicitation/create",
                Server,
                true,
                InputRequest,
                "ElicitRequest",
                "ElicitResult",
            ),
            M::RootsList => request(
                "roots/list",
                Server,
                true,
                InputRequest,
                "ListRootsRequest",
                "ListRootsResult",
            ),
            M::NotificationsInitialized => notification(
                "notifications/initialized",
                Client,
                true,
                Absent,
                "InitializedNotification",
            ),
            M::NotificationsCancelled => notification(
                "notifications/cancelled",
                Either,
                true,
                Core,
                "CancelledNotification",
            ),
            M::NotificationsProgress => notification(
                "notifications/progress",
                Either,
                true,
                Core,
                "ProgressNotification",
            ),
            M::NotificationsMessage => notification(
                "notifications/message",
                Server,
                true,
                Core,
                "LoggingMessageNotification",
            ),
            M::NotificationsResourcesUpdated => notification(
                "notifications/resources/updated",
                Server,
                true,
                Core,
                "ResourceUpdatedNotification",
            ),
            M::NotificationsResourcesListChanged => notification(
                "notifications/resources/list_changed",
                Server,
                true,
                Core,
                "ResourceListChangedNotification",
            ),
            M::NotificationsToolsListChanged => notification(
                "notifications/tools/list_changed",
                Server,
                true,
                Core,
                "ToolListChangedNotification",
            ),
            M::NotificationsPromptsListChanged => notification(
                "notifications/prompts/list_changed",
                Server,
                true,
                Core,
                "PromptListChangedNotification",
            ),
            M::NotificationsRootsListChanged => notification(
                "notifications/roots/list_changed",
                Client,
                true,
                Absent,
                "RootsListChangedNotification",
            ),
            M::NotificationsTasksStatus => notification(
                "notifications/tasks/status",
                Either,
                true,
                Absent,
                "TaskStatusNotification",
            ),
            M::NotificationsTasks => notification(
                "notifications/tasks",
                Server,
                false,
                TasksExtension,
                "TaskStatusNotification",
            ),
            M::NotificationsElicitationComplete => notification(
                "notifications/elicitation/complete",
                Server,
                true,
                Absent,
                "ElicitationCompleteNotification",
            ),
            M::NotificationsSubscriptionsAcknowledged => notification(
                "notifications/subscriptions/acknowledged",
                Server,
                false,
                Core,
                "SubscriptionsAcknowledgedNotification",
            ),
        }
    }

    /// The wire name (`tools/list`).
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The method with this wire name, if MCP defines one.
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// A request (answered) rather than a notification.
    pub const fn is_request(self) -> bool {
        matches!(self.row().kind, Kind::Request)
    }

    /// For a paginated list, the result's key holding the items (`tools/list` → `tools`).
    pub const fn list_key(self) -> Option<&'static str> {
        self.row().list_key
    }

    /// The `params` field naming the target (`params.name`, `params.uri`, `params.taskId`),
    /// which modern HTTP mirrors into `Mcp-Name`.
    pub const fn name_field(self) -> Option<&'static str> {
        self.row().name_field
    }

    /// Whether the modern era lets this request answer `input_required`.
    pub const fn may_require_input(self) -> bool {
        self.row().may_require_input
    }

    /// Whether the method exists in `era` as a message of its own: the modern era's
    /// `sampling/createMessage`, `elicitation/create` and `roots/list` exist only inside
    /// `inputRequests`, and its tasks methods only with the tasks extension negotiated (counted).
    pub const fn in_era(self, era: Era) -> bool {
        match era {
            Era::Legacy => self.row().legacy,
            Era::Modern => matches!(self.row().modern, Modern::Core | Modern::TasksExtension),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl AsRef<str> for Method {
    fn as_ref(&self) -> &str {
        self.name()
    }
}

/// A name MCP does not define (a custom or misspelt method).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an MCP method")]
pub struct UnknownMethod(pub String);

impl std::str::FromStr for Method {
    type Err = UnknownMethod;

    fn from_str(s: &str) -> Result<Method, UnknownMethod> {
        Method::from_name(s).ok_or_else(|| UnknownMethod(s.to_string()))
    }
}

// `method == Method::ToolsCall` where `method` is the `&str` off the wire.
impl PartialEq<Method> for str {
    fn eq(&self, other: &Method) -> bool {
        self == other.name()
    }
}

impl PartialEq<Method> for &str {
    fn eq(&self, other: &Method) -> bool {
        *self == other.name()
    }
}

/// For a method name off the wire: the `params` field modern HTTP mirrors into `Mcp-Name`.
pub fn name_field(method: &str) -> Option<&'static str> {
    Method::from_name(method).and_then(|m| m.name_field())
}

/// For a method name off the wire: whether it may answer `input_required` in the modern era.
pub fn may_require_input(method: &str) -> bool {
    Method::from_name(method).is_some_and(|m| m.may_require_input())
}

impl PartialEq<Method> for String {
    fn eq(&self, other: &Method) -> bool {
        self == other.name()
    }
}

impl PartialEq<str> for Method {
    fn eq(&self, other: &str) -> bool {
        self.name() == other
    }
}

impl PartialEq<&str> for Method {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// The vendored schema at `path` under `spec/`, compiled in: the crate does no I/O, not
    /// even in its tests (scripts/test.sh greps for it).
    fn schema(path: &str) -> Value {
        let text = match path {
            "2025-11-25/schema.json" => include_str!("../../../spec/2025-11-25/schema.json"),
            "2026-07-28/schema.json" => include_str!("../../../spec/2026-07-28/schema.json"),
            "extensions/io.modelcontextprotocol-tasks/draft/schema.json" => include_str!(
                "../../../spec/extensions/io.modelcontextprotocol-tasks/draft/schema.json"
            ),
            other => panic!("no vendored schema {other}"),
        };
        serde_json::from_str(text).expect("schema is JSON")
    }

    /// `(method, $defs name)` of every definition whose `method` is a `const`, directly or in
    /// an `allOf` branch (the tasks extension's style).
    fn methods_in(doc: &Value) -> BTreeSet<(String, String)> {
        let mut out = BTreeSet::new();
        for (def, body) in doc["$defs"].as_object().expect("$defs") {
            let branches =
                std::iter::once(body).chain(body["allOf"].as_array().into_iter().flatten());
            for b in branches {
                if let Some(m) = b
                    .pointer("/properties/method/const")
                    .and_then(Value::as_str)
                {
                    out.insert((m.to_string(), def.clone()));
                }
            }
        }
        out
    }

    /// The table's `(method, def)` for the methods `wanted` keeps.
    fn table(wanted: impl Fn(Row) -> bool) -> BTreeSet<(String, String)> {
        Method::ALL
            .iter()
            .map(|m| m.row())
            .filter(|r| wanted(*r))
            .map(|r| (r.name.to_string(), r.def.to_string()))
            .collect()
    }

    #[test]
    fn legacy_table_is_the_legacy_schema() {
        let from_schema = methods_in(&schema("2025-11-25/schema.json"));
        assert_eq!(table(|r| r.legacy), from_schema);
    }

    #[test]
    fn modern_table_is_the_modern_schema() {
        let mut from_schema = methods_in(&schema("2026-07-28/schema.json"));
        // The union of client notifications repeats `notifications/cancelled` under its own name.
        from_schema.remove(&(
            "notifications/cancelled".into(),
            "ClientNotification".into(),
        ));
        assert_eq!(
            table(|r| matches!(r.modern, Modern::Core | Modern::InputRequest)),
            from_schema
        );
    }

    #[test]
    fn tasks_extension_table_is_the_extension_schema() {
        let mut from_schema = methods_in(&schema(
            "extensions/io.modelcontextprotocol-tasks/draft/schema.json",
        ));
        // The extension restates the core's server→client requests to type `inputRequests`.
        for (m, d) in [
            ("sampling/createMessage", "CreateMessageRequest"),
            ("elicitation/create", "ElicitRequest"),
            ("roots/list", "ListRootsRequest"),
        ] {
            assert!(from_schema.remove(&(m.into(), d.into())), "{m}");
        }
        assert_eq!(table(|r| r.modern == Modern::TasksExtension), from_schema);
    }

    #[test]
    fn result_defs_exist_where_the_method_does() {
        let legacy = schema("2025-11-25/schema.json");
        let modern = schema("2026-07-28/schema.json");
        let ext = schema("extensions/io.modelcontextprotocol-tasks/draft/schema.json");
        for m in Method::ALL {
            let r = m.row();
            assert_eq!(r.result_def.is_some(), m.is_request(), "{m}");
            let Some(def) = r.result_def else { continue };
            let docs = [
                (r.legacy, &legacy),
                (
                    matches!(r.modern, Modern::Core | Modern::InputRequest),
                    &modern,
                ),
                (r.modern == Modern::TasksExtension, &ext),
            ];
            for (_, doc) in docs.into_iter().filter(|(present, _)| *present) {
                assert!(doc["$defs"].get(def).is_some(), "{m}: {def}");
            }
        }
    }

    /// A list key is the array the result schema holds, and only paginated requests have one.
    #[test]
    fn list_keys_are_the_result_arrays() {
        let legacy = schema("2025-11-25/schema.json");
        for m in Method::ALL {
            let Some(key) = m.list_key() else { continue };
            let def = m.row().result_def.expect("a list has a result");
            let items = legacy["$defs"][def]["properties"][key]["type"].as_str();
            assert_eq!(items, Some("array"), "{m}");
            let params = &legacy["$defs"][m.row().def]["properties"]["params"];
            assert!(
                params.to_string().contains("cursor") || params.to_string().contains("Paginated"),
                "{m}: {params}"
            );
        }
    }

    #[test]
    fn names_round_trip_and_compare_with_str() {
        for m in Method::ALL {
            assert_eq!(m.name().parse::<Method>(), Ok(*m));
            assert!(m.name() == *m);
            assert_eq!(m.to_string(), m.name());
        }
        assert!("x/custom".parse::<Method>().is_err());
        assert!("tools/list" != Method::ToolsCall);
    }

    #[test]
    fn eras() {
        assert!(Method::Initialize.in_era(Era::Legacy) && !Method::Initialize.in_era(Era::Modern));
        assert!(
            Method::ServerDiscover.in_era(Era::Modern)
                && !Method::ServerDiscover.in_era(Era::Legacy)
        );
        assert!(!Method::SamplingCreateMessage.in_era(Era::Modern));
        assert!(Method::TasksUpdate.in_era(Era::Modern));
    }
}
