"""Progress on standard error, as the waihost CLI shows it (docs/cli.md, "Progress"): one
line per phase when standard error is not a terminal; on a terminal one line redrawn in
place with the phase, the percent of the steps it can count and the ETA."""
import sys
import time


class Progress:
    def __init__(self, enabled=True, stream=None, terminal=None, clock=time.monotonic):
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.clock = clock
        self.phase = None
        self.start = 0.0
        self.drawn = False

    def begin(self, phase):
        """A new phase: its own line (on a terminal, the line redrawn from here on)."""
        self.end()
        self.phase, self.start = phase, self.clock()
        if not self.enabled:
            return
        if self.terminal:
            self._draw(phase)
        else:
            self.stream.write(phase + "\n")
            self.stream.flush()

    def update(self, done, total, detail=None):
        """`done` of `total` steps of the phase; shown on a terminal only."""
        if not (self.enabled and self.terminal) or total <= 0:
            return
        elapsed = self.clock() - self.start
        text = "%s  %d%%" % (self.phase, 100 * done // total)
        if 0 < done < total:
            text += "  ETA %d:%02d" % divmod(int(elapsed * (total - done) / done), 60)
        self._draw(text + ("  (%s)" % detail if detail else ""))

    def end(self):
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
        self.drawn = False

    def _draw(self, text):
        self.stream.write("\r\033[K" + text)
        self.stream.flush()
        self.drawn = True
