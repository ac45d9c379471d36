"""WaiHost from Python: probe backend units and decode wai.neural.int_hyper payloads through
the host's C API (libwaihost, docs/c-api.md), with the host's own messages on failure.

    rgb, report = waihost.decode("sample.wai", model="int_hyper_model")
"""
import ctypes
import json
import os

from . import _capi

__all__ = ["Host", "WaihostError", "probe", "decode", "api_version"]

_MESSAGE_CAP = 4096


class WaihostError(Exception):
    """A failed C API call: `status` (the waihost_status value), `status_name`
    ("payload", "model_set", "no_such_unit", ...) and the host's message."""

    def __init__(self, call, status, status_name, message):
        super().__init__("%s: %s: %s" % (call, status_name, message))
        self.call = call
        self.status = status
        self.status_name = status_name
        self.message = message


def api_version():
    """(major, minor) of the loaded libwaihost."""
    v = _capi.lib().waihost_version()
    return (v >> 16, v & 0xFFFF)


def _check(call, status, msg):
    if status != 0:
        lib = _capi.lib()
        raise WaihostError(call, status, lib.waihost_status_name(status).decode(),
                           msg.value.decode("utf-8", "replace"))


def _text(p):
    return None if p is None else p.decode("utf-8", "replace")


def _payload(payload):
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    if isinstance(payload, (str, os.PathLike)):
        with open(payload, "rb") as f:
            return f.read()
    raise TypeError("payload must be bytes or a path, not %s" % type(payload).__name__)


class Host:
    """One open host (plugins loaded and graphs prepared are kept between calls).
    plugin_dirs, cache_dir ("" for none), worker (the `waihost-unit-worker`
    executable every plugin runs in) and spot_check ("every", "off" or "sample:N",
    docs/probe.md §7) default to the environment, as for the waihost CLI. Usable from
    several threads; close() it (or use `with`) when done."""

    def __init__(self, plugin_dirs=None, cache_dir=None, worker=None, probe_timeout=0.0, spot_check=None):
        lib = _capi.lib()
        opts = _capi.OpenOptions()
        opts.struct_size = ctypes.sizeof(opts)
        if plugin_dirs is not None:
            dirs = [os.fsencode(d) for d in plugin_dirs]
            self._dirs = (ctypes.c_char_p * max(len(dirs), 1))(*dirs)
            opts.plugin_dirs = ctypes.cast(self._dirs, ctypes.POINTER(ctypes.c_char_p))
            opts.plugin_dir_count = len(dirs)
        opts.cache_dir = None if cache_dir is None else os.fsencode(cache_dir)
        opts.worker_executable = None if worker is None else os.fsencode(worker)
        opts.probe_timeout_s = float(probe_timeout)
        opts.spot_check = None if spot_check is None else spot_check.encode()
        handle = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_MESSAGE_CAP)
        _check("waihost_open", lib.waihost_open(ctypes.byref(opts), ctypes.byref(handle), msg, _MESSAGE_CAP), msg)
        self._handle = handle

    def close(self):
        if self._handle:
            _capi.lib().waihost_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _live(self):
        if not self._handle:
            raise ValueError("the host is closed")
        return self._handle

    def probe(self, fresh=False):
        """Every unit's row: backend, path, kind, index (-1: no unit), device, driver,
        state, rank (0: not ranked), runs_per_second, reason, cached."""
        lib = _capi.lib()
        units = ctypes.POINTER(_capi.Unit)()
        count = ctypes.c_size_t()
        msg = ctypes.create_string_buffer(_MESSAGE_CAP)
        _check("waihost_probe", lib.waihost_probe(self._live(), 1 if fresh else 0, ctypes.byref(units),
                                                  ctypes.byref(count), msg, _MESSAGE_CAP), msg)
        try:
            rows = []
            for i in range(count.value):
                u = units[i]
                rows.append({
                    "backend": _text(u.backend), "path": _text(u.path), "kind": _text(u.kind), "index": u.index,
                    "device": _text(u.device), "driver": _text(u.driver), "state": _text(u.state),
                    "rank": u.rank, "runs_per_second": u.runs_per_second, "reason": _text(u.reason),
                    "cached": bool(u.cached),
                })
            return rows
        finally:
            lib.waihost_free(units)

    def probe_json(self, fresh=False):
        """The probe as the `waihost probe --json` object, parsed."""
        lib = _capi.lib()
        text = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_MESSAGE_CAP)
        _check("waihost_probe_json", lib.waihost_probe_json(self._live(), 1 if fresh else 0, ctypes.byref(text),
                                                            msg, _MESSAGE_CAP), msg)
        try:
            return json.loads(ctypes.string_at(text.value).decode("utf-8"))
        finally:
            lib.waihost_free(text)

    def decode(self, payload, model, unit=None, as_bytes=False):
        """Decodes a bare payload or WAI1 envelope (bytes or a path) with the model set in
        folder `model`, on the unit `unit` selects (None: the configured default unit,
        docs/configuration.md §3 — "best" unless waihost.conf or WAIHOST_UNIT says otherwise).
        Returns (pixels, report): pixels a numpy uint8 array of shape
        (height, width, 3), or bytes of RGB8 rows with as_bytes=True or without numpy;
        report the `waihost decode --json` object plus unit_index."""
        lib = _capi.lib()
        data = _payload(payload)
        msg = ctypes.create_string_buffer(_MESSAGE_CAP)
        np = None
        if not as_bytes:
            try:
                import numpy as np
            except ImportError:
                np = None
        image = _capi.Image()
        image.struct_size = ctypes.sizeof(image)
        # Host-allocated output: the host checks the picture's size against the model set
        # before it allocates, so a payload header claiming 65535x65535 costs nothing here
        # (docs/c-api.md §5.3). The array is a copy, made after the decode.
        report = ctypes.POINTER(_capi.Report)()
        status = lib.waihost_decode(self._live(), data, len(data), os.fsencode(model),
                                    None if unit is None else unit.encode(),
                                    ctypes.byref(image), ctypes.byref(report), msg, _MESSAGE_CAP)
        _check("waihost_decode", status, msg)
        try:
            r = report.contents
            result = json.loads(r.json.decode("utf-8"))
            result["unit_index"] = r.unit_index
            pixels = ctypes.string_at(image.pixels, image.size)
            if np is not None:
                return np.frombuffer(pixels, dtype=np.uint8).reshape(image.height, image.width, 3).copy(), result
            return pixels, result
        finally:
            lib.waihost_free(image.pixels)
            lib.waihost_free(report)


def probe(fresh=False, **host_options):
    """Probes with a host opened on `host_options` (see Host) and returns the unit rows."""
    with Host(**host_options) as h:
        return h.probe(fresh=fresh)


def decode(payload, model, unit=None, as_bytes=False, **host_options):
    """Decodes with a host opened on `host_options` (see Host); returns (pixels, report)."""
    with Host(**host_options) as h:
        return h.decode(payload, model, unit=unit, as_bytes=as_bytes)
