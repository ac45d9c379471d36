"""waihost-convert's progress (tools/convert/waihost_convert/progress.py) follows the CLI's
rule (docs/cli.md, "Progress"): one line per phase into a file or pipe, percent and ETA
redrawn on a terminal, nothing with --quiet."""
import io

from waihost_convert.progress import Progress


def test_not_a_terminal_gives_one_line_per_phase_and_no_percent():
    out = io.StringIO()
    p = Progress(stream=out, terminal=False)
    p.begin("loading checkpoint c.pth")
    p.begin("evaluating 2 pictures")
    p.update(1, 2, "a.png")
    p.end()
    assert out.getvalue() == "loading checkpoint c.pth\nevaluating 2 pictures\n"


def test_a_terminal_redraws_the_phase_with_percent_and_eta():
    out, now = io.StringIO(), [0.0]
    p = Progress(stream=out, terminal=True, clock=lambda: now[0])
    p.begin("evaluating 4 pictures")
    now[0] = 10.0
    p.update(1, 4, "a.png")
    now[0] = 40.0
    p.update(4, 4)
    p.end()
    draws = out.getvalue().split("\r\x1b[K")
    assert draws[1:] == ["evaluating 4 pictures", "evaluating 4 pictures  25%  ETA 0:30  (a.png)",
                         "evaluating 4 pictures  100%\n"]


def test_quiet_writes_nothing():
    out = io.StringIO()
    p = Progress(enabled=False, stream=out, terminal=True)
    p.begin("converting")
    p.update(1, 2)
    p.end()
    assert out.getvalue() == ""
