//! The book (`book/src/`) is tested like code: every ```` ```ioa ```` block is checked by
//! `ioa check`, every ```` ```console ```` session is replayed with the built binary and its
//! output compared, every relative link must resolve, and the README stays a front page.
//!
//! The conventions a chapter follows (they are also described in `book/src/introduction.md`):
//!
//! - ```` ```ioa ```` — a whole model: `ioa check` must accept it.
//! - ```` ```ioa,error=E0301 ```` — a whole model that is wrong on purpose: `ioa check` must
//!   reject it and report exactly that code.
//! - ```` ```ioa,excerpt=examples/consensus/cons.ioa ```` — lines copied from a real file: each
//!   must appear in that file in the same order, and `ioa check` must accept the file.
//! - ```` ```ioa,sketch ```` — an outline with parts left out, written `…`: not checkable, so it
//!   must contain `…` (a complete model cannot hide here).
//! - ```` ```console ```` — a shell session: lines starting with `$ ` are commands (a trailing `\`
//!   continues one), the lines after a command up to the next are its output (standard output
//!   and standard error as the terminal shows them). A command that exits with status N ≠ 0
//!   shows `(exit status N)` as its last output line. A line `…` alone stands for any number of
//!   lines. Durations, rates and byte sizes are compared as `<time>`, `<rate>` and `<size>`.
//!   The commands of one page run one after the other, in the order of the page, in one
//!   scratch directory whose `examples/` and `tests/` are the repository's, so a file one
//!   command writes is there for the next. The repository's path is shown as relative.
//!
//! The same checker runs on `tests/data/book/*.md`, pages that are wrong on purpose, and must
//! find each planted fault; that keeps the checker itself honest.

mod common;

use common::ROOT;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced code block of a Markdown page.
struct Block {
    /// The page, relative to the repository root.
    page: String,
    /// The 1-based line of the opening fence.
    line: usize,
    /// The info string after the opening fence (`ioa,error=E0301`).
    info: String,
    /// The lines between the fences.
    body: Vec<String>,
}

impl Block {
    fn place(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }
}

/// The fenced code blocks of a page. Fences are lines of three or more backticks, possibly
/// indented (inside a list item); a block ends at a fence at least as long as the opening one.
fn fenced_blocks(page: &str, text: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    let mut open: Option<(Block, usize, usize)> = None; // block, fence length, indentation
    for (idx, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        match open.take() {
            None if ticks >= 3 => {
                let info = trimmed[ticks..].trim().to_string();
                let block = Block {
                    page: page.to_string(),
                    line: idx + 1,
                    info,
                    body: Vec::new(),
                };
                open = Some((block, ticks, indent));
            }
            None => {}
            Some((block, fence, _)) if ticks >= fence && trimmed[ticks..].trim().is_empty() => {
                blocks.push(block);
            }
            Some((mut block, fence, block_indent)) => {
                let strip = indent.min(block_indent);
                block.body.push(line[strip..].to_string());
                open = Some((block, fence, block_indent));
            }
        }
    }
    match open {
        Some((block, ..)) => Err(format!("{}: code block never closed", block.place())),
        None => Ok(blocks),
    }
}

/// What a block's info string asks for.
enum Kind {
    /// A whole model `ioa check` accepts.
    Model,
    /// A whole model `ioa check` rejects with this code.
    Wrong(String),
    /// Lines of this repository file.
    Excerpt(String),
    /// An outline with elisions.
    Sketch,
    /// A shell session to replay.
    Console,
    /// Anything else (`sh` without output, `text`, `json`, …): not run.
    Other,
}

fn kind(info: &str) -> Result<Kind, String> {
    let mut parts = info.split(',').map(str::trim);
    let lang = parts.next().unwrap_or("");
    let attr = parts.next();
    Ok(match (lang, attr) {
        ("ioa", None) => Kind::Model,
        ("ioa", Some("sketch")) => Kind::Sketch,
        ("ioa", Some(a)) if a.starts_with("error=") => Kind::Wrong(a["error=".len()..].into()),
        ("ioa", Some(a)) if a.starts_with("excerpt=") => {
            Kind::Excerpt(a["excerpt=".len()..].into())
        }
        ("ioa", Some(a)) => return Err(format!("unknown `ioa` block attribute `{a}`")),
        ("console", _) => Kind::Console,
        _ => Kind::Other,
    })
}

/// Every page of the book, relative to the repository root, in a stable order.
fn book_pages() -> Vec<String> {
    let mut pages = Vec::new();
    let mut dirs = vec![Path::new(ROOT).join("book/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read book directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(relative(&path));
            }
        }
    }
    pages.sort();
    pages
}

fn relative(path: &Path) -> String {
    path.strip_prefix(ROOT)
        .expect("inside the repository")
        .to_string_lossy()
        .into_owned()
}

fn read(page: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// `ioa check FILE` in the repository root: exit code and everything it printed.
fn ioa_check(file: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ioa"))
        .arg("check")
        .arg(file)
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        .output()
        .expect("start ioa");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Checks the `ioa` blocks of `pages`; returns one message per fault and counts per page.
fn check_models(pages: &[String], scratch: &Path) -> (Vec<String>, Vec<(String, [usize; 4])>) {
    let mut faults = Vec::new();
    let mut counts = Vec::new();
    for page in pages {
        let blocks = match fenced_blocks(page, &read(page)) {
            Ok(blocks) => blocks,
            Err(e) => {
                faults.push(e);
                continue;
            }
        };
        let mut count = [0; 4]; // models, wrong models, excerpts, sketches
        for block in &blocks {
            let kind = match kind(&block.info) {
                Ok(kind) => kind,
                Err(e) => {
                    faults.push(format!("{}: {e}", block.place()));
                    continue;
                }
            };
            let text = block.body.join("\n") + "\n";
            let file = scratch.join(format!(
                "{}_{}.ioa",
                page.replace(['/', '.'], "_"),
                block.line
            ));
            match kind {
                Kind::Model => {
                    count[0] += 1;
                    std::fs::write(&file, &text).expect("write block");
                    let (code, out) = ioa_check(&file);
                    if code != 0 {
                        faults.push(format!(
                            "{}: `ioa check` rejects this model:\n{out}",
                            block.place()
                        ));
                    }
                }
                Kind::Wrong(expected) => {
                    count[1] += 1;
                    std::fs::write(&file, &text).expect("write block");
                    let (code, out) = ioa_check(&file);
                    if code == 0 || !out.contains(&format!("[{expected}]")) {
                        faults.push(format!(
                            "{}: expected `ioa check` to report {expected}, got exit {code}:\n{out}",
                            block.place()
                        ));
                    }
                }
                Kind::Excerpt(source) => {
                    count[2] += 1;
                    let path = Path::new(ROOT).join(&source);
                    match std::fs::read_to_string(&path) {
                        Err(e) => faults.push(format!("{}: {source}: {e}", block.place())),
                        Ok(original) => {
                            if let Some(missing) = excerpt_missing(&block.body, &original) {
                                faults.push(format!(
                                    "{}: line `{missing}` is not in {source} (in this order)",
                                    block.place()
                                ));
                            }
                            let (code, out) = ioa_check(&path);
                            if code != 0 {
                                faults.push(format!(
                                    "{}: {source} does not check:\n{out}",
                                    block.place()
                                ));
                            }
                        }
                    }
                }
                Kind::Sketch => {
                    count[3] += 1;
                    if !text.contains('…') {
                        faults.push(format!(
                            "{}: a sketch must leave something out (`…`); a whole model is a plain `ioa` block",
                            block.place()
                        ));
                    }
                }
                Kind::Console | Kind::Other => {}
            }
        }
        counts.push((page.clone(), count));
    }
    (faults, counts)
}

/// The first excerpt line (trimmed, not blank) that is not found in `original` after the lines
/// before it, if any.
fn excerpt_missing(excerpt: &[String], original: &str) -> Option<String> {
    let mut rest = original.lines().map(str::trim);
    excerpt
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && *l != "…")
        .find(|wanted| !rest.any(|l| l == *wanted))
        .map(String::from)
}

/// One command of a console block and the output the book shows for it.
struct Session {
    command: String,
    expected: Vec<String>,
}

fn sessions(block: &Block) -> Result<Vec<Session>, String> {
    let mut out: Vec<Session> = Vec::new();
    let mut continuing = false;
    for line in &block.body {
        if continuing {
            let last = out.last_mut().expect("a command is open");
            last.command.push('\n');
            last.command.push_str(line);
            continuing = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Session {
                command: command.to_string(),
                expected: Vec::new(),
            });
            continuing = command.ends_with('\\');
        } else {
            match out.last_mut() {
                Some(session) => session.expected.push(line.clone()),
                None => {
                    return Err(format!(
                        "{}: output before the first `$ ` command",
                        block.place()
                    ))
                }
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{}: a console block with no `$ ` command",
            block.place()
        ));
    }
    Ok(out)
}

/// A scratch directory for the console blocks of one page, its `examples/` and `tests/` the
/// repository's.
fn session_dir(scratch: &Path, page: &str) -> PathBuf {
    let dir = scratch.join(page.replace(['/', '.'], "_"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("session directory");
    for shared in ["examples", "tests"] {
        std::os::unix::fs::symlink(Path::new(ROOT).join(shared), dir.join(shared))
            .expect("link into the repository");
    }
    dir
}

/// Runs one command with `sh` in `dir`, the built `ioa` first on the PATH; its combined output,
/// with `(exit status N)` appended when N ≠ 0.
fn run_command(dir: &Path, command: &str) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_ioa"))
        .parent()
        .expect("bin dir");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("start sh");
    // A trace names its model by absolute path; the book shows paths from the repository.
    let mut text = String::from_utf8_lossy(&out.stdout).replace(&format!("{ROOT}/"), "");
    let code = out.status.code().unwrap_or(-1);
    if code != 0 {
        text.truncate(text.trim_end().len());
        if !text.is_empty() {
            text.push('\n');
        }
        writeln!(text, "(exit status {code})").unwrap();
    }
    text
}

/// Durations, rates and byte sizes, which change from run to run, as placeholders, and runs of
/// white space as one space.
fn normalise(line: &str) -> String {
    const UNITS: [(&str, &str); 18] = [
        ("states/s", "<rate>"),
        ("generated/s", "<rate>"),
        ("bytes/state", "<size>"),
        ("threads", "<threads>"),
        ("thread", "<threads>"),
        ("steps/s", "<rate>"),
        ("transitions/s", "<rate>"),
        ("walks/s", "<rate>"),
        ("KiB", "<size>"),
        ("MiB", "<size>"),
        ("GiB", "<size>"),
        ("ms", "<time>"),
        ("µs", "<time>"),
        ("us", "<time>"),
        ("min", "<time>"),
        ("ns", "<time>"),
        ("s", "<time>"),
        ("B", "<size>"),
    ];
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if starts_number {
            let mut j = i;
            while j < chars.len()
                && (chars[j].is_ascii_digit()
                    || ((chars[j] == '.' || chars[j] == ',')
                        && chars.get(j + 1).is_some_and(|c| c.is_ascii_digit())))
            {
                j += 1;
            }
            let mut k = j;
            if chars.get(k) == Some(&' ') {
                k += 1;
            }
            let rest: String = chars[k..].iter().collect();
            let unit = UNITS.iter().find(|(unit, _)| {
                rest.starts_with(unit)
                    && !rest[unit.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if let Some((unit, placeholder)) = unit {
                out.push_str(placeholder);
                i = k + unit.chars().count();
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    // Columns of numbers realign when a placeholder replaces them: compare words, not spaces.
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `actual` matches `expected`, where an expected line `…` stands for any number of
/// lines; on a mismatch, the first expected line not matched.
fn output_mismatch(expected: &[String], actual: &[String]) -> Option<String> {
    fn matches(expected: &[String], actual: &[String]) -> bool {
        match expected.split_first() {
            None => actual.is_empty(),
            Some((first, rest)) if first == "…" => {
                (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
            }
            Some((first, rest)) => actual
                .split_first()
                .is_some_and(|(a, more)| a == first && matches(rest, more)),
        }
    }
    // Blank lines at the end of an output are not shown in the book.
    let trim =
        |lines: &[String]| lines.len() - lines.iter().rev().take_while(|l| l.is_empty()).count();
    let (expected, actual) = (&expected[..trim(expected)], &actual[..trim(actual)]);
    if matches(expected, actual) {
        return None;
    }
    // Name the first line that differs, for the message.
    let first_bad = expected
        .iter()
        .zip(actual)
        .find(|(e, a)| *e != "…" && e != a)
        .map(|(e, _)| e.clone())
        .unwrap_or_else(|| "(the number of lines)".into());
    Some(first_bad)
}

/// Replays the console blocks of `pages`; returns one message per fault and the commands run.
fn replay_sessions(pages: &[String], scratch: &Path) -> (Vec<String>, Vec<String>) {
    let mut faults = Vec::new();
    let mut commands = Vec::new();
    for page in pages {
        let Ok(blocks) = fenced_blocks(page, &read(page)) else {
            continue; // reported by check_models
        };
        let dir = session_dir(scratch, page);
        for block in blocks
            .iter()
            .filter(|b| matches!(kind(&b.info), Ok(Kind::Console)))
        {
            let sessions = match sessions(block) {
                Ok(s) => s,
                Err(e) => {
                    faults.push(e);
                    continue;
                }
            };
            for session in sessions {
                commands.push(format!("{}: $ {}", block.page, session.command));
                let output = run_command(&dir, &session.command);
                let actual: Vec<String> = output.lines().map(normalise).collect();
                let expected: Vec<String> = session.expected.iter().map(|l| normalise(l)).collect();
                if let Some(line) = output_mismatch(&expected, &actual) {
                    faults.push(format!(
                        "{}: `$ {}` printed something else (first difference near `{line}`):\n--- the book\n{}\n--- the command\n{}",
                        block.place(),
                        session.command,
                        session.expected.join("\n"),
                        output.trim_end()
                    ));
                }
            }
        }
    }
    (faults, commands)
}

/// Relative links `](path)` and images of `page` whose target does not exist.
fn broken_links(page: &str) -> Vec<String> {
    let text = read(page);
    let dir = Path::new(ROOT).join(page);
    let dir = dir.parent().expect("page directory");
    let mut broken = Vec::new();
    let mut in_code = false;
    for (idx, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            let file = target.split('#').next().unwrap_or("");
            let external = target.contains("://") || target.starts_with("mailto:");
            if !external && !file.is_empty() && !dir.join(file).exists() {
                broken.push(format!(
                    "{page}:{}: link to `{target}` does not resolve",
                    idx + 1
                ));
            }
            rest = &after[end..];
        }
    }
    broken
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("book")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

#[test]
fn every_ioa_block_of_the_book_checks() {
    let mut pages = book_pages();
    pages.push("README.md".to_string());
    let (faults, counts) = check_models(&pages, &scratch("models"));
    assert!(faults.is_empty(), "{}", faults.join("\n\n"));
    // Pin what is checked, so that a block that stops being checked shows up here.
    let mut table = String::from("page: models, wrong models, excerpts, sketches\n");
    for (page, [m, w, e, s]) in counts.iter().filter(|(_, c)| c.iter().any(|n| *n > 0)) {
        writeln!(table, "{page}: {m}, {w}, {e}, {s}").unwrap();
    }
    insta::assert_snapshot!(table);
}

#[test]
fn every_console_session_of_the_book_reproduces() {
    let mut pages = book_pages();
    pages.push("README.md".to_string());
    let (faults, commands) = replay_sessions(&pages, &scratch("sessions"));
    assert!(faults.is_empty(), "{}", faults.join("\n\n"));
    insta::assert_snapshot!(commands.join("\n"));
}

#[test]
fn every_relative_link_resolves() {
    let mut pages = book_pages();
    pages.extend(["README.md".to_string(), "examples/README.md".to_string()]);
    let broken: Vec<String> = pages.iter().flat_map(|p| broken_links(p)).collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_summary_lists_every_chapter() {
    let summary = read("book/src/SUMMARY.md");
    let missing: Vec<String> = book_pages()
        .into_iter()
        .filter(|p| !p.ends_with("SUMMARY.md"))
        .filter(|p| !summary.contains(&format!("]({})", &p["book/src/".len()..])))
        .collect();
    assert!(
        missing.is_empty(),
        "not in book/src/SUMMARY.md: {missing:?}"
    );
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the book holds the rest"
    );
    for command in ["scripts/quickstart examples", "scripts/quickstart test"] {
        assert!(readme.contains(command), "README.md lost `{command}`");
    }
}

/// The checker finds the faults planted in `tests/data/book/*.md`; each page names the fault
/// it expects in its first line, `<!-- expect: TEXT -->`.
#[test]
fn the_checker_finds_planted_faults() {
    let dir = Path::new(ROOT).join("tests/data/book");
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/data/book")
        .map(|e| relative(&e.expect("entry").path()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 5, "planted pages: {pages:?}");
    let mut report = String::new();
    for page in &pages {
        let first = read(page).lines().next().unwrap_or("").to_string();
        let expect = first
            .strip_prefix("<!-- expect: ")
            .and_then(|s| s.strip_suffix(" -->"))
            .unwrap_or_else(|| panic!("{page}: first line must be `<!-- expect: TEXT -->`"));
        let one = [page.clone()];
        let (mut faults, _) = check_models(&one, &scratch("planted_models"));
        faults.extend(replay_sessions(&one, &scratch("planted_sessions")).0);
        faults.extend(broken_links(page));
        assert!(
            faults.iter().any(|f| f.contains(expect)),
            "{page}: expected a fault containing `{expect}`, got: {faults:#?}"
        );
        writeln!(
            report,
            "{page}: {} fault(s), found `{expect}`",
            faults.len()
        )
        .unwrap();
    }
    insta::assert_snapshot!(report);
}

#[test]
fn normalising_hides_timings_only() {
    let cases = [
        (
            "verified in 0.42 s (1,234 states/s)",
            "verified in <time> (<rate>)",
        ),
        ("took 12ms, 161 KiB", "took <time>, <size>"),
        ("121 states, depth 9", "121 states, depth 9"),
        ("step 30: P[2] seed 62", "step 30: P[2] seed 62"),
        ("1 min 40 s", "<time> <time>"),
        ("213 bytes/state, 2 threads", "<size>, <threads>"),
        ("Node = [0]..[5]", "Node = [0]..[5]"),
    ];
    for (line, want) in cases {
        assert_eq!(normalise(line), want, "{line}");
    }
}
