"""Byte transports behind one small interface, as python-can's ``BusABC``.

A :class:`Transport` moves bytes; framing is the codec's job. The base class checks state and turns
every backend failure into :class:`TransportError`, so the delivery layer has one exception to catch
for "the cable was pulled". Backends implement only ``_open``, ``_read``, ``_write`` and ``_close``.

Host side:

* :class:`SerialTransport`: ``serial.serial_for_url``, so a device path (``/dev/ttyACM0``, a
  pseudo-terminal such as ``/dev/pts/5`` or a symlink to one), ``socket://host:port`` and
  ``loop://`` all work.
* :class:`MemoryTransport`: one end of an in-process :func:`memory_pair`.

Device side (used by the simulator; they survive a host that comes and goes):

* :class:`PtyDevice`: the master end of a pseudo-terminal, with a stable symlink to the slave that
  it re-creates on replug, as udev does for a USB device.
* :class:`TcpDevice`: a TCP server accepting one host at a time.

>>> with open_transport("loop://") as t:
...     t.write(b"\\x7e\\x01\\x7e")
...     t.read(0.5)
b'~\\x01~'
"""

from __future__ import annotations

import abc
import errno
import os
import pathlib
import queue
import select
import socket
import threading
import tty
from collections.abc import Callable
from typing import Any

_WRITE_BUFFER_LIMIT = 1 << 16


class TransportError(IOError):
    """The link failed (port vanished, cable pulled, connection reset) or the transport is closed."""


class Transport(abc.ABC):
    """A byte pipe to the reader. Use as a context manager or call :meth:`open` / :meth:`close`."""

    name = "abstract"

    def __init__(self) -> None:
        self._is_open = False

    @property
    def is_open(self) -> bool:
        """``True`` between :meth:`open` and :meth:`close` (or a failure)."""
        return self._is_open

    def open(self) -> None:
        """Open the link.

        :raises TransportError: when it cannot be opened (yet).
        """
        if self._is_open:
            return
        try:
            self._open()
        except TransportError:
            raise
        except Exception as exc:  # pyserial raises SerialException, sockets OSError
            raise TransportError(f"{self.describe()}: cannot open: {exc}") from exc
        self._is_open = True

    def read(self, timeout: float | None) -> bytes:
        """Bytes available within ``timeout`` seconds (``b""`` if none; ``None`` blocks).

        :raises TransportError: if the link failed or is closed.
        """
        if not self._is_open:
            raise TransportError(f"{self.describe()}: not open")
        try:
            return self._read(timeout)
        except TransportError:
            self._fail()
            raise
        except Exception as exc:
            self._fail()
            raise TransportError(f"{self.describe()}: read failed: {exc}") from exc

    def write(self, data: bytes) -> None:
        """Send ``data``.

        :raises TransportError: if the link failed or is closed.
        """
        if not self._is_open:
            raise TransportError(f"{self.describe()}: not open")
        try:
            self._write(data)
        except TransportError:
            self._fail()
            raise
        except Exception as exc:
            self._fail()
            raise TransportError(f"{self.describe()}: write failed: {exc}") from exc

    def close(self) -> None:
        """Close the link; safe to call twice."""
        if self._is_open:
            self._is_open = False
            try:
                self._close()
            except Exception:  # closing a dead port may fail too; it is closed either way
                pass

    def describe(self) -> str:
        """Human-readable address."""
        return self.name

    def _fail(self) -> None:
        self.close()

    def __enter__(self) -> Transport:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abc.abstractmethod
    def _open(self) -> None: ...

    @abc.abstractmethod
    def _read(self, timeout: float | None) -> bytes: ...

    @abc.abstractmethod
    def _write(self, data: bytes) -> None: ...

    @abc.abstractmethod
    def _close(self) -> None: ...


class SerialTransport(Transport):
    """pyserial's ``serial_for_url``: device paths, pseudo-terminals, ``socket://``, ``loop://``."""

    name = "serial"

    def __init__(self, url: str, baudrate: int = 115200, **options: Any) -> None:
        super().__init__()
        self.url = url
        self.baudrate = baudrate
        self.options = options
        self._port: Any = None

    def describe(self) -> str:
        return self.url

    def _open(self) -> None:
        import serial  # imported here so that the codec and tests need no pyserial

        self._port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0, **self.options)

    def _read(self, timeout: float | None) -> bytes:
        port = self._port
        waiting = port.in_waiting
        if waiting:
            return bytes(port.read(waiting))
        port.timeout = timeout
        first = port.read(1)
        if not first:
            return b""
        waiting = port.in_waiting
        return bytes(first + port.read(waiting)) if waiting else bytes(first)

    def _write(self, data: bytes) -> None:
        self._port.write(data)
        self._port.flush()

    def _close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            port.close()


# --- in-process pair ----------------------------------------------------------------------------


class _Pipe:
    def __init__(self) -> None:
        self.q: queue.Queue[bytes] = queue.Queue()
        self.closed = False


class MemoryTransport(Transport):
    """One end of an in-process byte pipe; see :func:`memory_pair`."""

    name = "memory"

    def __init__(self, inbound: _Pipe, outbound: _Pipe) -> None:
        super().__init__()
        self._in = inbound
        self._out = outbound

    def _open(self) -> None:
        if self._in.closed or self._out.closed:
            raise TransportError("memory pipe is unplugged")

    def _read(self, timeout: float | None) -> bytes:
        if self._in.closed:
            raise TransportError("memory pipe unplugged")
        chunks = []
        try:
            chunks.append(self._in.q.get(timeout=timeout) if timeout != 0 else self._in.q.get_nowait())
            while True:
                chunks.append(self._in.q.get_nowait())
        except queue.Empty:
            pass
        if self._in.closed:
            raise TransportError("memory pipe unplugged")
        return b"".join(c for c in chunks if c)

    def _write(self, data: bytes) -> None:
        if self._out.closed:
            raise TransportError("memory pipe unplugged")
        self._out.q.put(bytes(data))

    def _close(self) -> None:
        pass


def memory_pair() -> tuple[MemoryTransport, MemoryTransport]:
    """Two connected in-process transports (host end, device end)."""
    a, b = _Pipe(), _Pipe()
    return MemoryTransport(a, b), MemoryTransport(b, a)


# --- device side --------------------------------------------------------------------------------


class DeviceEndpoint(Transport):
    """Device end of a link: reads return ``b""`` and writes are dropped while no host is there.

    :meth:`unplug` and :meth:`replug` simulate pulling and plugging the cable.
    """

    address = ""
    """What the host opens (a path or a pyserial URL)."""
    dropped_bytes = 0

    @abc.abstractmethod
    def unplug(self) -> None:
        """Break the link as a pulled cable would."""

    @abc.abstractmethod
    def replug(self) -> None:
        """Restore the link at the same address."""


class PtyDevice(DeviceEndpoint):
    """Master end of a pseudo-terminal; the host opens :attr:`address` (the symlink when given).

    The slave is put in raw mode at once and kept open here, so no byte is echoed or translated
    before the host opens it, and the master never sees a hang-up when the host goes away.
    """

    name = "pty"

    def __init__(self, link: str | os.PathLike[str] | None = None) -> None:
        super().__init__()
        self.link = None if link is None else pathlib.Path(link)
        self.slave_path = ""
        self._master = -1
        self._slave = -1
        self._pending = b""
        self.unplugged = False

    def describe(self) -> str:
        return f"pty {self.address}"

    def _open(self) -> None:
        self._create()

    def _create(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.slave_path = os.ttyname(slave)
        self._pending = b""
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass
            os.symlink(self.slave_path, tmp)
            os.replace(tmp, self.link)  # atomic: the host never sees a half-made link
            self.address = str(self.link)
        else:
            self.address = self.slave_path

    def _destroy(self) -> None:
        if self.link is not None:
            try:
                self.link.unlink()
            except FileNotFoundError:
                pass
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    def unplug(self) -> None:
        if not self.unplugged:
            self.unplugged = True
            self._destroy()

    def replug(self) -> None:
        if self.unplugged:
            self.unplugged = False
            self._create()

    def _read(self, timeout: float | None) -> bytes:
        if self.unplugged:
            if timeout:
                select.select([], [], [], timeout)
            return b""
        self._flush()
        r, _, _ = select.select([self._master], [], [], timeout)
        if not r:
            return b""
        try:
            return os.read(self._master, 65536)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EIO):
                return b""
            raise

    def _write(self, data: bytes) -> None:
        if self.unplugged:
            self.dropped_bytes += len(data)
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        try:
            n = os.write(self._master, self._pending)
        except BlockingIOError:
            n = 0
        self._pending = self._pending[n:]
        if len(self._pending) > _WRITE_BUFFER_LIMIT:
            # Nobody reads the port: like a USB device whose host stopped polling, bytes are lost
            # (the events themselves stay in the ring buffer and are resent).
            self.dropped_bytes += len(self._pending)
            self._pending = b""

    def _close(self) -> None:
        if not self.unplugged:
            self._destroy()
        self.unplugged = False


class TcpDevice(DeviceEndpoint):
    """TCP server for one host at a time; the host opens ``socket://HOST:PORT``.

    :param port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`open`).
    """

    name = "tcp"

    def __init__(self, port: int = 0, host: str = "127.0.0.1") -> None:
        super().__init__()
        self.host = host
        self.port = port
        self._server: socket.socket | None = None
        self._client: socket.socket | None = None
        self.unplugged = False

    def describe(self) -> str:
        return f"tcp {self.address}"

    def _listen(self) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((self.host, self.port))
        s.listen(1)
        s.setblocking(False)
        self.port = s.getsockname()[1]
        self.address = f"socket://{self.host}:{self.port}"
        self._server = s

    def _open(self) -> None:
        self._listen()

    def _drop_client(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            finally:
                self._client = None

    def unplug(self) -> None:
        if not self.unplugged:
            self.unplugged = True
            self._drop_client()
            if self._server is not None:
                self._server.close()
                self._server = None

    def replug(self) -> None:
        if self.unplugged:
            self.unplugged = False
            self._listen()

    def _read(self, timeout: float | None) -> bytes:
        if self.unplugged or self._server is None:
            if timeout:
                select.select([], [], [], timeout)
            return b""
        socks: list[socket.socket] = [self._client] if self._client is not None else [self._server]
        r, _, _ = select.select(socks, [], [], timeout)
        if not r:
            return b""
        if self._client is None:
            try:
                client, _ = self._server.accept()
            except BlockingIOError:
                return b""
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._client = client
            return b""
        try:
            data = self._client.recv(65536)
        except OSError:
            data = b""
        if not data:
            self._drop_client()  # the host went away; wait for the next one
        return data

    def _write(self, data: bytes) -> None:
        if self._client is None:
            self.dropped_bytes += len(data)
            return
        try:
            self._client.sendall(data)
        except OSError:
            self.dropped_bytes += len(data)
            self._drop_client()

    def _close(self) -> None:
        self._drop_client()
        if self._server is not None:
            self._server.close()
            self._server = None


BACKENDS: dict[str, Callable[..., Transport]] = {
    "serial": SerialTransport,
    "memory": lambda: memory_pair()[0],
}
"""Host-side transport factories by name; ``firmware_bridge.simulator`` adds ``sim``."""

_lock = threading.Lock()


def register_backend(name: str, factory: Callable[..., Transport]) -> None:
    """Make ``factory`` available to :func:`open_transport` as ``name:...``."""
    with _lock:
        BACKENDS[name] = factory


def open_transport(spec: str, **options: Any) -> Transport:
    """A transport for ``spec``: ``sim`` (an in-process simulator), ``memory``, a device path or
    any pyserial URL (``socket://``, ``loop://``, ``rfc2217://``). Not opened yet.

    :raises KeyError: for an unknown backend name.
    """
    if spec in BACKENDS:
        return BACKENDS[spec](**options)
    if spec == "sim":
        import firmware_bridge.simulator  # noqa: F401  (registers "sim")

        return BACKENDS["sim"](**options)
    return SerialTransport(spec, **options)
