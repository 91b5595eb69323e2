//! Helpers for tests of crates that call HTTP endpoints.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

/// A loopback port on which connections are refused, reserved for as long as the value lives.
///
/// A socket bound but not listening makes the kernel refuse connections to its port, and keeps
/// the port from being handed to another `bind(…:0)`. Binding a listener and closing it, the
/// obvious alternative, frees the port for a server of a test running in parallel, which then
/// receives the requests meant to fail.
#[derive(Debug)]
pub struct RefusedPort {
    socket: socket2::Socket,
}

impl RefusedPort {
    /// Binds a TCP socket to `127.0.0.1:0` without listening.
    pub fn new() -> io::Result<Self> {
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
        socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
        Ok(Self { socket })
    }

    /// The reserved port.
    pub fn port(&self) -> io::Result<u16> {
        self.socket
            .local_addr()?
            .as_socket()
            .map(|a| a.port())
            .ok_or_else(|| io::Error::other("not an IP socket"))
    }
}
