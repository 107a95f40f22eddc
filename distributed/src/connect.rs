//! Connecting the processes, before timely takes the sockets over.
//!
//! Timely's own connection code prints "awaiting connections" on standard output (which would
//! break `--format json`) and waits forever for a process that never starts. This does the same
//! handshake (each process listens on its address, connects to every lower-numbered process
//! and sends its number; accepts the higher-numbered ones) with a deadline and errors that name
//! the process and address, then hands the sockets to timely's
//! `initialize_networking_from_sockets`.

use crate::ClusterError;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// The sockets to every other process, by process number (`None` at `me`).
pub fn connect(
    addresses: &[String],
    me: usize,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>, ClusterError> {
    let deadline = Instant::now() + timeout;
    let listener = TcpListener::bind(&addresses[me]).map_err(|e| {
        ClusterError::Setup(format!(
            "process {me} cannot listen on {}: {e}",
            addresses[me]
        ))
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| ClusterError::Setup(e.to_string()))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (q, address) in addresses.iter().enumerate().take(me) {
        let stream = loop {
            match TcpStream::connect(address) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(ClusterError::Setup(format!(
                        "process {q} at {address} did not answer within {} s ({e})",
                        timeout.as_secs()
                    )))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        };
        let mut stream = stream;
        let _ = stream.set_nodelay(true);
        stream
            .write_all(&(me as u64).to_be_bytes())
            .map_err(|e| ClusterError::Setup(format!("process {q} at {address}: {e}")))?;
        sockets[q] = Some(stream);
    }
    let mut waiting = addresses.len() - me - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((mut stream, from)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(|e| ClusterError::Setup(e.to_string()))?;
                let _ = stream.set_nodelay(true);
                let _ = stream.set_read_timeout(Some(timeout));
                let mut id = [0u8; 8];
                stream.read_exact(&mut id).map_err(|e| {
                    ClusterError::Setup(format!(
                        "a connection from {from} sent no process number: {e}"
                    ))
                })?;
                let _ = stream.set_read_timeout(None);
                let q = u64::from_be_bytes(id) as usize;
                if q <= me || q >= addresses.len() || sockets[q].is_some() {
                    return Err(ClusterError::Setup(format!(
                        "a connection from {from} says it is process {q}, which process {me} does not expect (are two clusters sharing a port?)"
                    )));
                }
                sockets[q] = Some(stream);
                waiting -= 1;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (me + 1..addresses.len())
                        .filter(|&q| sockets[q].is_none())
                        .map(|q| format!("process {q} ({})", addresses[q]))
                        .collect();
                    return Err(ClusterError::Setup(format!(
                        "no connection within {} s from {}",
                        timeout.as_secs(),
                        missing.join(", ")
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(ClusterError::Setup(e.to_string())),
        }
    }
    Ok(sockets)
}
