"""ctypes declarations of waihost.h (docs/c-api.md), loaded on first use."""
import ctypes
import ctypes.util
import os
import threading

API_MAJOR = 1

c_size_t = ctypes.c_size_t
c_char_p = ctypes.c_char_p


class OpenOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("plugin_dirs", ctypes.POINTER(c_char_p)),
        ("plugin_dir_count", c_size_t),
        ("cache_dir", c_char_p),
        ("worker_executable", c_char_p),
        ("probe_timeout_s", ctypes.c_double),
        ("spot_check", c_char_p),   # since 1.1
    ]


class Unit(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("backend", c_char_p),
        ("path", c_char_p),
        ("kind", c_char_p),
        ("index", ctypes.c_int32),
        ("device", c_char_p),
        ("driver", c_char_p),
        ("state", c_char_p),
        ("rank", ctypes.c_int32),
        ("runs_per_second", ctypes.c_double),
        ("reason", c_char_p),
        ("cached", ctypes.c_int32),
    ]


class Image(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("width", ctypes.c_uint32),
        ("height", ctypes.c_uint32),
        ("stride", c_size_t),
        ("pixels", ctypes.c_void_p),
        ("capacity", c_size_t),
        ("size", c_size_t),
    ]


class Report(ctypes.Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("unit_kind", c_char_p),
        ("backend", c_char_p),
        ("unit_index", ctypes.c_int32),
        ("device", c_char_p),
        ("driver", c_char_p),
        ("dispatch", c_char_p),
        ("reason", c_char_p),
        ("rank", ctypes.c_int32),
        ("sha256", c_char_p),
        ("width", ctypes.c_uint32),
        ("height", ctypes.c_uint32),
        ("json", c_char_p),
    ]


_lock = threading.Lock()
_lib = None


def _find():
    explicit = os.environ.get("WAIHOST_LIBRARY")
    if explicit:
        return explicit
    found = ctypes.util.find_library("waihost")
    if found:
        return found
    return "libwaihost.so.%d" % API_MAJOR


def lib():
    """The loaded libwaihost, its functions typed; OSError names what was tried."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        name = _find()
        try:
            l = ctypes.CDLL(name)
        except OSError as e:
            raise OSError("cannot load the WaiHost C library %r (%s); install it with "
                          "scripts/install-capi.sh PREFIX or set WAIHOST_LIBRARY" % (name, e)) from e
        st = ctypes.c_int
        msg = (ctypes.c_char_p, c_size_t)
        sigs = {
            "waihost_version": (ctypes.c_uint32, ()),
            "waihost_status_name": (ctypes.c_char_p, (st,)),
            "waihost_free": (None, (ctypes.c_void_p,)),
            "waihost_open": (st, (ctypes.POINTER(OpenOptions), ctypes.POINTER(ctypes.c_void_p)) + msg),
            "waihost_close": (None, (ctypes.c_void_p,)),
            "waihost_probe": (st, (ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(Unit)),
                                   ctypes.POINTER(c_size_t)) + msg),
            "waihost_probe_json": (st, (ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)) + msg),
            "waihost_image_size": (st, (ctypes.c_char_p, c_size_t, ctypes.POINTER(ctypes.c_uint32),
                                        ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(c_size_t)) + msg),
            "waihost_decode": (st, (ctypes.c_void_p, ctypes.c_char_p, c_size_t, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.POINTER(Image), ctypes.POINTER(ctypes.POINTER(Report))) + msg),
        }
        for fn, (restype, argtypes) in sigs.items():
            f = getattr(l, fn)
            f.restype = restype
            f.argtypes = list(argtypes)
        version = l.waihost_version()
        if version >> 16 != API_MAJOR:
            raise OSError("%s has WaiHost C API %d.%d; this binding needs %d.x"
                          % (name, version >> 16, version & 0xFFFF, API_MAJOR))
        _lib = l
        return l
