//! `ioa lsp`: a language server over standard input and output (the Language Server Protocol,
//! on the synchronous `lsp-server` crate), so that an editor shows `ioa check`'s diagnostics as
//! the user types and answers hover, go to definition, find references, outline, formatting and
//! quick fixes from the same front end.
//!
//! Edits are coalesced: a change only records the new text; analysis runs when no message is
//! waiting (or before a request needs it), so a burst of keystrokes costs one check. A change
//! re-checks the changed document and every open document that read it.

mod analysis;
mod features;
mod line_index;

use analysis::Analysis;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;

/// Runs the server until the editor says `exit`.
pub fn run() -> ExitCode {
    let (connection, io_threads) = Connection::stdio();
    let capabilities = lsp::ServerCapabilities {
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Kind(
            lsp::TextDocumentSyncKind::FULL,
        )),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        document_formatting_provider: Some(lsp::OneOf::Left(true)),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    };
    let capabilities = serde_json::to_value(capabilities).expect("capabilities are plain data");
    if let Err(e) = connection.initialize(capabilities) {
        eprintln!("ioa lsp: the editor did not initialise the session: {e}");
        return ExitCode::from(1);
    }
    let mut server = Server {
        connection,
        documents: HashMap::new(),
        stale: BTreeSet::new(),
    };
    let outcome = server.serve();
    drop(server);
    let joined = io_threads.join();
    match (outcome, joined) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) => {
            eprintln!("ioa lsp: {e}");
            ExitCode::from(1)
        }
        (_, Err(e)) => {
            eprintln!("ioa lsp: {e}");
            ExitCode::from(1)
        }
    }
}

/// An open document: the editor's text and, once analysed, what the front end found.
struct Document {
    path: PathBuf,
    text: String,
    analysis: Option<Analysis>,
}

struct Server {
    connection: Connection,
    documents: HashMap<lsp::Url, Document>,
    /// Documents whose analysis is out of date, analysed when the editor pauses.
    stale: BTreeSet<lsp::Url>,
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

impl Server {
    fn serve(&mut self) -> Result<(), Failure> {
        loop {
            let message = match self.connection.receiver.recv() {
                Ok(message) => message,
                Err(_) => return Ok(()),
            };
            match message {
                Message::Request(request) => {
                    if self.connection.handle_shutdown(&request)? {
                        return Ok(());
                    }
                    self.refresh()?;
                    self.answer(request)?;
                }
                Message::Notification(notification) => self.notice(notification)?,
                Message::Response(_) => {}
            }
            if self.connection.receiver.is_empty() {
                self.refresh()?;
            }
        }
    }

    fn notice(&mut self, notification: Notification) -> Result<(), Failure> {
        use lsp::notification::*;
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let params: lsp::DidOpenTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let uri = params.text_document.uri;
                let Ok(path) = uri.to_file_path() else {
                    return Ok(());
                };
                self.documents.insert(
                    uri.clone(),
                    Document {
                        path,
                        text: params.text_document.text,
                        analysis: None,
                    },
                );
                self.changed(&uri);
            }
            DidChangeTextDocument::METHOD => {
                let params: lsp::DidChangeTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let uri = params.text_document.uri;
                if let Some(document) = self.documents.get_mut(&uri) {
                    // Full synchronisation: the last change holds the whole text.
                    if let Some(change) = params.content_changes.into_iter().last() {
                        document.text = change.text;
                    }
                    self.changed(&uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                let params: lsp::DidCloseTextDocumentParams =
                    serde_json::from_value(notification.params)?;
                let uri = params.text_document.uri;
                if let Some(document) = self.documents.remove(&uri) {
                    self.stale.remove(&uri);
                    self.publish(&uri, vec![])?;
                    // Importers now read the file from disk again.
                    self.mark_readers(&document.path);
                }
            }
            DidSaveTextDocument::METHOD => {}
            _ => {}
        }
        Ok(())
    }

    /// Marks a document and the open documents that read it as stale.
    fn changed(&mut self, uri: &lsp::Url) {
        self.stale.insert(uri.clone());
        if let Some(path) = self.documents.get(uri).map(|d| d.path.clone()) {
            self.mark_readers(&path);
        }
    }

    fn mark_readers(&mut self, path: &std::path::Path) {
        for (uri, document) in &self.documents {
            let reads = document.analysis.as_ref().is_some_and(|a| a.read(path));
            // A universe file depends on the models beside it.
            let universe_beside = document.path.extension().is_some_and(|e| e == "universe")
                && document.path.parent() == path.parent();
            if reads || universe_beside {
                self.stale.insert(uri.clone());
            }
        }
    }

    /// Analyses every stale document and publishes its diagnostics.
    fn refresh(&mut self) -> Result<(), Failure> {
        if self.stale.is_empty() {
            return Ok(());
        }
        let open: HashMap<PathBuf, String> = self
            .documents
            .values()
            .map(|d| (d.path.clone(), d.text.clone()))
            .collect();
        for uri in std::mem::take(&mut self.stale) {
            let Some(document) = self.documents.get_mut(&uri) else {
                continue;
            };
            let analysis = analysis::analyse(&document.path, &open);
            let diagnostics = features::diagnostics(&analysis, &uri);
            document.analysis = Some(analysis);
            self.publish(&uri, diagnostics)?;
        }
        Ok(())
    }

    fn publish(&self, uri: &lsp::Url, diagnostics: Vec<lsp::Diagnostic>) -> Result<(), Failure> {
        let params = lsp::PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version: None,
        };
        let notification = Notification::new(
            lsp::notification::PublishDiagnostics::METHOD.to_string(),
            params,
        );
        self.connection
            .sender
            .send(Message::Notification(notification))?;
        Ok(())
    }

    fn analysis(&self, uri: &lsp::Url) -> Option<&Analysis> {
        self.documents.get(uri)?.analysis.as_ref()
    }

    fn answer(&mut self, request: Request) -> Result<(), Failure> {
        use lsp::request::*;
        let id = request.id.clone();
        let result: Result<serde_json::Value, (ErrorCode, String)> = match request.method.as_str() {
            HoverRequest::METHOD => self.with_position(request, |a, _, p| {
                serde_json::to_value(features::hover(a, p))
            }),
            GotoDefinition::METHOD => self.with_position(request, |a, _, p| {
                serde_json::to_value(features::definition(a, p))
            }),
            References::METHOD => {
                match serde_json::from_value::<lsp::ReferenceParams>(request.params) {
                    Ok(params) => {
                        let uri = params.text_document_position.text_document.uri;
                        let position = params.text_document_position.position;
                        let found = self.analysis(&uri).map(|a| {
                            features::references(a, position, params.context.include_declaration)
                        });
                        Ok(serde_json::to_value(found.unwrap_or_default())?)
                    }
                    Err(e) => Err((ErrorCode::InvalidParams, e.to_string())),
                }
            }
            DocumentSymbolRequest::METHOD => {
                match serde_json::from_value::<lsp::DocumentSymbolParams>(request.params) {
                    Ok(params) => {
                        let symbols = self
                            .analysis(&params.text_document.uri)
                            .map(features::document_symbols)
                            .unwrap_or_default();
                        Ok(serde_json::to_value(lsp::DocumentSymbolResponse::Nested(
                            symbols,
                        ))?)
                    }
                    Err(e) => Err((ErrorCode::InvalidParams, e.to_string())),
                }
            }
            Formatting::METHOD => {
                match serde_json::from_value::<lsp::DocumentFormattingParams>(request.params) {
                    Ok(params) => match self.analysis(&params.text_document.uri) {
                        Some(a) if params.text_document.uri.path().ends_with(".ioa") => {
                            match features::formatting(a) {
                                Ok(edits) => Ok(serde_json::to_value(edits)?),
                                Err(syntax_error) => Err((
                                    ErrorCode::RequestFailed,
                                    format!("cannot format: {syntax_error}"),
                                )),
                            }
                        }
                        _ => Ok(serde_json::Value::Null),
                    },
                    Err(e) => Err((ErrorCode::InvalidParams, e.to_string())),
                }
            }
            CodeActionRequest::METHOD => {
                match serde_json::from_value::<lsp::CodeActionParams>(request.params) {
                    Ok(params) => {
                        let uri = params.text_document.uri;
                        let actions = self
                            .analysis(&uri)
                            .map(|a| features::code_actions(a, &uri, params.range))
                            .unwrap_or_default();
                        Ok(serde_json::to_value(actions)?)
                    }
                    Err(e) => Err((ErrorCode::InvalidParams, e.to_string())),
                }
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("`ioa lsp` does not answer `{other}`"),
            )),
        };
        self.respond(id, result)
    }

    /// Answers a request whose parameters are a document and a position.
    fn with_position(
        &self,
        request: Request,
        answer: impl Fn(&Analysis, &lsp::Url, lsp::Position) -> serde_json::Result<serde_json::Value>,
    ) -> Result<serde_json::Value, (ErrorCode, String)> {
        let params: lsp::TextDocumentPositionParams = serde_json::from_value(request.params)
            .map_err(|e| (ErrorCode::InvalidParams, e.to_string()))?;
        let uri = params.text_document.uri;
        match self.analysis(&uri) {
            Some(a) => answer(a, &uri, params.position)
                .map_err(|e| (ErrorCode::InternalError, e.to_string())),
            None => Ok(serde_json::Value::Null),
        }
    }

    fn respond(
        &self,
        id: RequestId,
        result: Result<serde_json::Value, (ErrorCode, String)>,
    ) -> Result<(), Failure> {
        let response = match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        };
        self.connection.sender.send(Message::Response(response))?;
        Ok(())
    }
}
