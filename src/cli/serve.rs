//! `ioa serve`: the interactive explorer (`src/serve/`) on a local HTTP server (tiny_http),
//! bound to 127.0.0.1 unless `--bind` says otherwise. The API is documented in docs/serve.md.

use super::model::{self, Model};
use super::output::{exit, failure, print_stderr, Step};
use super::ColorChoice;
use interpreter::machine::Machine;
use ioa::serve::session::Session;
use ioa_lang::diagnostics::IntoDiagnostic;
use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const PAGE: &str = include_str!("../serve/assets/explorer.html");
const CSS: &str = include_str!("../serve/assets/explorer.css");
const JS: &str = include_str!("../serve/assets/explorer.js");

/// The largest request body read (a fired step is a few hundred bytes).
const MAX_BODY: u64 = 1 << 20;

/// Options of `ioa serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// The model and the automaton to explore.
    #[command(flatten)]
    model: model::ModelArgs,
    /// Start with the path of this ITF trace (of the same model) instead of a start state.
    #[arg(long)]
    from: Option<PathBuf>,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. Only loopback by default: anyone who can reach the port can
    /// drive the explorer.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Colour the diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Runs `ioa serve` until the process is stopped.
pub fn run(args: ServeArgs) -> ExitCode {
    exit(serve(&args))
}

/// Loads the model, opens the session and the server, and answers requests.
fn serve(args: &ServeArgs) -> Step<ExitCode> {
    let sel = &args.model;
    let m = model::open(
        &sel.file,
        sel.universe_file.as_deref(),
        &sel.universe,
        args.color,
        1,
    )?;
    let automaton =
        model::pick_automaton(&m.spec, sel.automaton.as_deref(), None).map_err(failure)?;
    let params = model::params(&m.spec, automaton, &sel.params).map_err(failure)?;
    let machine = Machine::new(&m.spec, &m.universe, automaton, params)
        .map_err(|e| model::fail(&[e.to_diagnostic()], &m.sources, args.color))?;
    let name = &m.spec.automata[automaton.0 as usize].name;
    let mut session = session(args, &m, &machine, name)?;
    if let Some(from) = &args.from {
        follow(&mut session, &machine, from, name)?;
    }
    let server = listen(args)?;
    let addr = match server.server_addr() {
        tiny_http::ListenAddr::IP(a) => a.to_string(),
        #[allow(unreachable_patterns)]
        other => format!("{other:?}"),
    };
    if !args.bind.is_loopback() {
        print_stderr(&format!(
            "warning: listening on {}, not only on this machine: anyone who reaches it can drive the explorer\n",
            args.bind
        ));
    }
    print_stderr(&format!(
        "serving {name} on http://{addr}/ (stop with Ctrl-C)\n"
    ));
    answer(&server, &mut session);
    Ok(ExitCode::SUCCESS)
}

/// The explorer's session: the machine, the metadata of the paths it saves, the page.
fn session<'m, 's>(
    args: &ServeArgs,
    m: &Model,
    machine: &'m Machine<'s>,
    name: &str,
) -> Step<Session<'m, 's>> {
    let (file, given, universe) = (
        args.model.file.clone(),
        args.model.params.clone(),
        m.universe_text.clone(),
    );
    let meta = Box::new(move |machine: &Machine, choices: &[Vec<usize>]| {
        let mut doc = ioa::api::itf::meta_doc(
            machine,
            ioa::api::itf::TraceMeta {
                model: &file,
                params: &given,
                universe: &universe,
                choices,
                extra: serde_json::json!({ "description": "a path saved from ioa serve" }),
            },
        );
        doc["serve"] = true.into();
        doc
    });
    let title = ioa::view::svg::esc(name);
    let page = ioa::view::page::fill(PAGE, &[("CSS", CSS), ("JS", JS), ("TITLE", &title)]);
    Session::new(machine, meta, page).map_err(failure)
}

/// Starts the session on the path of the ITF trace `from` (`--from`).
fn follow(session: &mut Session, machine: &Machine, from: &Path, name: &str) -> Step<()> {
    let from_text = from.display();
    let text = std::fs::read_to_string(from)
        .map_err(|e| failure(format!("cannot read `{from_text}`: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| failure(format!("`{from_text}` is not JSON: {e}")))?;
    ioa::api::itf::read_trace(machine, &json)
        .and_then(|trace| session.follow(&trace))
        .map_err(|e| failure(format!("{from_text} is not a trace of {name} here: {e}")))
}

/// Listens on `--bind`:`--port`, or says why it cannot.
fn listen(args: &ServeArgs) -> Step<tiny_http::Server> {
    tiny_http::Server::http((args.bind, args.port)).map_err(|e| {
        let in_use = e
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::AddrInUse);
        let hint = if in_use {
            "; another program uses that port: choose another with --port (0 picks a free one)"
        } else {
            ""
        };
        failure(format!(
            "cannot listen on {}:{}: {e}{hint}",
            args.bind, args.port
        ))
    })
}

/// Answers the server's requests with the session until the process is stopped.
fn answer(server: &tiny_http::Server, session: &mut Session) {
    for mut request in server.incoming_requests() {
        let mut body = Vec::new();
        let read = request.as_reader().take(MAX_BODY).read_to_end(&mut body);
        let reply = match read {
            Ok(_) => session.handle(request.method().as_str(), request.url(), &body),
            Err(e) => ioa::serve::session::Reply {
                status: 400,
                content_type: "application/json",
                body: serde_json::json!({ "error": format!("cannot read the request: {e}") })
                    .to_string(),
            },
        };
        let header = tiny_http::Header::from_bytes("Content-Type", reply.content_type)
            .expect("a valid header");
        let response = tiny_http::Response::from_string(reply.body)
            .with_status_code(reply.status)
            .with_header(header);
        // A client that went away is its own problem.
        let _ = request.respond(response);
    }
}
