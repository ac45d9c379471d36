import hashlib

import numpy
import pytest

import waihost


def test_api_version_is_major_1():
    assert waihost.api_version()[0] == 1


def test_probe_lists_the_cpu_backend_accepted(host_options):
    units = waihost.probe(**host_options)
    cpu = [u for u in units if u["backend"] == "cpu"]
    assert cpu, units
    # The scalar unit exists on every x86-64 machine and is exact.
    assert all(u["state"] == "accepted" for u in cpu), cpu
    assert [u["index"] for u in cpu] == list(range(len(cpu)))
    assert sorted(u["rank"] for u in cpu) == list(range(1, len(cpu) + 1))
    assert all(u["kind"] == "cpu" and u["runs_per_second"] > 0 for u in cpu), cpu
    assert cpu[0]["path"].endswith("libWaiCPUBackend.so")


def test_probe_json_has_the_same_rows(host_options):
    with waihost.Host(**host_options) as h:
        rows = h.probe()
        doc = h.probe_json()
    assert [(u["backend"], u["index"], u["state"]) for u in doc["units"]] == \
        [(u["backend"], u["index"] if u["index"] >= 0 else None, u["state"]) for u in rows]


def test_decode_gives_the_golden_picture_as_an_array(host_options, samples, golden):
    with waihost.Host(**host_options) as h:
        first = [u for u in h.probe() if u["rank"] == 1]
        rgb, report = h.decode(samples / "sample.wai", model=samples / "int_hyper_model")
    g = golden["sample.wai"]
    assert isinstance(rgb, numpy.ndarray) and rgb.dtype == numpy.uint8
    assert rgb.shape == (g["height"], g["width"], 3)
    assert hashlib.sha256(rgb.tobytes()).hexdigest() == g["sha256"]
    assert report["sha256"] == g["sha256"]
    assert len(first) == 1, first
    assert (report["backend"], report["unit_index"]) == (first[0]["backend"], first[0]["index"])
    assert report["dispatch"] == "ranked_first"
    assert report["enveloped"] is True


def test_decode_bytes_on_the_reference_matches_too(host_options, samples, golden):
    data = (samples / "odd-45x29.payload").read_bytes()
    pixels, report = waihost.decode(data, model=str(samples / "int_hyper_model"), unit="reference",
                                    as_bytes=True, **host_options)
    assert isinstance(pixels, bytes)
    assert hashlib.sha256(pixels).hexdigest() == golden["odd-45x29.payload"]["sha256"]
    assert report["backend"] == "reference" and report["unit_index"] == -1 and report["enveloped"] is False


def test_truncated_payload_raises_with_the_hosts_message(host_options, samples):
    data = (samples / "odd-45x29.payload").read_bytes()
    with pytest.raises(waihost.WaihostError) as e:
        waihost.decode(data[:len(data) // 2], model=samples / "int_hyper_model", **host_options)
    assert e.value.status_name == "payload"
    assert e.value.message and e.value.message in str(e.value)


def test_bad_model_folder_and_unknown_unit_raise(host_options, samples, tmp_path):
    with waihost.Host(**host_options) as h:
        with pytest.raises(waihost.WaihostError) as e:
            h.decode(samples / "sample.wai", model=tmp_path / "absent")
        assert e.value.status_name == "model_set" and "absent" in e.value.message
        with pytest.raises(waihost.WaihostError) as e:
            h.decode(samples / "sample.wai", model=samples / "int_hyper_model", unit="nosuch:3")
        assert e.value.status_name == "no_such_unit"
        assert "cpu:0" in e.value.message, e.value.message


def test_the_spot_check_policy_is_an_open_option(host_options, samples):
    with pytest.raises(waihost.WaihostError) as e:
        waihost.Host(spot_check="sample:0", **host_options)
    assert e.value.status_name == "invalid_argument" and '"sample:0"' in e.value.message, e.value.message
    model, sample = samples / "int_hyper_model", samples / "sample.wai"
    _, checked = waihost.decode(sample, model=model, unit="cpu:0", spot_check="every", **host_options)
    _, unchecked = waihost.decode(sample, model=model, unit="cpu:0", spot_check="off", **host_options)
    assert checked["backend"] == unchecked["backend"] == "cpu"
    assert "spot_check_cpu_ms" in checked["timings"], checked["timings"]
    assert "spot_check_cpu_ms" not in unchecked["timings"], unchecked["timings"]
    assert checked["sha256"] == unchecked["sha256"]


def test_a_payload_that_is_neither_bytes_nor_path_is_a_type_error(host_options, samples):
    with pytest.raises(TypeError):
        waihost.decode(12, model=samples / "int_hyper_model", **host_options)


def test_one_host_decodes_from_several_threads_at_once(host_options, samples, golden):
    # docs/c-api.md §7: a host may be used by several threads at once (ctypes drops the GIL
    # for the call, so the decodes do overlap).
    import concurrent.futures
    with waihost.Host(**host_options) as h:
        h.probe()
        jobs = [("sample.wai", "best"), ("odd-45x29.payload", "reference"), ("tiny-1x1.wai", "best"),
                ("sample.wai", "reference")]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda j: h.decode(samples / j[0], model=samples / "int_hyper_model", unit=j[1],
                                                       as_bytes=True), jobs))
    for (name, _), (pixels, report) in zip(jobs, results):
        assert hashlib.sha256(pixels).hexdigest() == golden[name]["sha256"] == report["sha256"]


def test_a_header_claiming_the_largest_picture_is_refused_by_the_host(host_options, samples):
    # width and height (u16 at bytes 6 and 8, docs/capabilities/int_hyper.md §4) set to 65535:
    # the binding allocates nothing from the header; the host refuses it.
    data = bytearray((samples / "odd-45x29.payload").read_bytes())
    data[6:10] = b"\xff\xff\xff\xff"
    with pytest.raises(waihost.WaihostError) as e:
        waihost.decode(bytes(data), model=samples / "int_hyper_model", unit="reference", **host_options)
    assert e.value.status_name == "payload", e.value
    assert "65535" in e.value.message, e.value.message


def test_decode_without_a_unit_follows_the_configured_default(host_options, samples, golden, monkeypatch):
    # WAIHOST_UNIT overrides waihost.conf (docs/configuration.md §3); the binding passes no
    # unit of its own, so the host's configured default decides.
    monkeypatch.setenv("WAIHOST_UNIT", "reference")
    pixels, report = waihost.decode(samples / "odd-45x29.payload", model=samples / "int_hyper_model",
                                    as_bytes=True, **host_options)
    assert hashlib.sha256(pixels).hexdigest() == golden["odd-45x29.payload"]["sha256"]
    assert report["backend"] == "reference" and report["unit_index"] == -1
