#!/usr/bin/env python3
"""The explorer page (solver/serve/page.cpp) in a real browser: headless chromium, driven by
selenium, loads Kalah(4,3) standard's start from `kalah serve` and must list every move with
the value `kalah label` gives; a click on a pit must then draw the board the JSON API says that
sowing leads to and list that position's values, again equal to `kalah label`'s. The C++ tests
check the page's text and the API; only a browser runs the JavaScript that draws the board,
fetches the answer and plays a click. Run by ctest with KALAH_BINARY at the built tool; exits
77 (skipped) without selenium, chromium or chromedriver (scripts/install-deps installs them).
KALAH_CHROMIUM and KALAH_CHROMEDRIVER override the browser's and the driver's paths."""
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

KALAH = os.environ.get("KALAH_BINARY", "")
CHROMIUM = os.environ.get("KALAH_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("KALAH_CHROMEDRIVER", "/usr/bin/chromedriver")
PITS, SEEDS = 4, 3
START = "3,3,3,3/3,3,3,3/0/0/S"
DEADLINE = 55  # seconds for the whole test
WAIT = 20      # seconds for the page to show an answer
SKIP = 77


class Failure(Exception):
    pass


def skip(reason):
    print(f"browser test skipped: {reason}", file=sys.stderr)
    sys.exit(SKIP)


def import_selenium():
    """selenium, from Debian's python3 (python3-selenium) if the interpreter ctest was given
    (say a pyenv one) lacks it."""
    try:
        import selenium  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if (os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system)
            and not os.environ.get("KALAH_BROWSER_TEST_REEXEC")):
        found = subprocess.run([system, "-c", "import selenium"], capture_output=True, timeout=10).returncode == 0
        if found:
            os.environ["KALAH_BROWSER_TEST_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(__file__), *sys.argv[1:]])
    skip("python's selenium module not found (Debian: python3-selenium)")


def label(position):
    """{pit: value} of `kalah label` for a position of Kalah(4,3) standard."""
    r = subprocess.run([KALAH, "label", "--pits", str(PITS), "--seeds", str(SEEDS), "--rules", "standard",
                        "--threads", "1", "--tt-memory", "16M"],
                       input=position + "\n", capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        raise Failure(f"kalah label {position} failed: {r.stderr.strip()}")
    answer = json.loads(r.stdout.splitlines()[0])
    return {m["pit"]: m["value"] for m in answer["moves"]}


class Server:
    """kalah serve on a free port; its stderr kept (drained so it never blocks)."""

    def __init__(self):
        self.process = subprocess.Popen(
            [KALAH, "serve", "--port", "0", "--threads", "2", "--tt-memory", "16M", "--max-seconds", "20"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            try:
                first = self.lines.get(timeout=10)
            except queue.Empty:
                raise Failure("kalah serve said nothing in 10 s")
            match = re.match(r"kalah serve: listening on (http://[^/]+/) ", first or "")
            if not match:
                raise Failure(f"kalah serve did not start: {first!r}")
        except BaseException:
            self.stop()
            raise
        self.url = match.group(1)

    def _drain(self):
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def api(self, **params):
        url = self.url + "api/v1/solve?" + urllib.parse.urlencode(params)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1: never a proxy
        with opener.open(url, timeout=20) as r:
            return json.load(r)

    def stop(self):
        """SIGINT; the exit code (130, as after Ctrl-C) or None if it had to be killed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1000,800", "--no-proxy-server"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


# What the page shows, read from its DOM: the board as position text (the mover from the
# summary line), the listed moves' values and the values and colours on the legal pits.
SNAPSHOT = r"""
const cells = [...document.querySelectorAll('#board td[data-side]')];
const seeds = (td) => td.firstChild ? td.firstChild.textContent : '';
const side = (s) => cells.filter(td => td.dataset.side === s)
  .sort((a, b) => a.dataset.pit - b.dataset.pit).map(seeds).join(',');
const store = (title) => { const td = document.querySelector(`#board td.store[title="${title}"]`);
  return td ? td.textContent : ''; };
const summary = document.getElementById('summary').textContent;
const mover = summary.startsWith('South to move') ? 'S' : summary.startsWith('North to move') ? 'N' : '?';
return {
  board: cells.length ? [side('S'), side('N'), store("South's store"), store("North's store"), mover].join('/') : '',
  listed: [...document.querySelectorAll('#moves li')].map(li => li.textContent),
  pits: cells.filter(td => td.classList.contains('legal')).map(td => ({
    side: td.dataset.side, pit: +td.dataset.pit, text: td.querySelector('.val').textContent,
    outcome: ['win', 'draw', 'loss', 'unknown'].find(c => td.classList.contains(c))})),
  status: document.getElementById('status').textContent,
};
"""


def listed_values(shot):
    """{pit: value} from the moves list ("pit 3: +2 (search)"); a bound fails the match."""
    values = {}
    for text in shot["listed"]:
        match = re.match(r"pit (\d+): ([+-]?\d+)\b", text)
        if not match:
            raise Failure(f"listed move without an exact value: {text!r}")
        values[int(match.group(1))] = int(match.group(2))
    return values


def check_shot(shot, position, expected, what):
    if shot["board"] != position:
        raise Failure(f"{what}: the board shows {shot['board']}, expected {position}")
    got = listed_values(shot)
    if got != expected:
        raise Failure(f"{what}: listed values {got}, kalah label gives {expected}")
    order = [int(re.match(r"pit (\d+)", t).group(1)) for t in shot["listed"]]
    mover = position.split("/")[4]
    sign = 1 if mover == "S" else -1
    if [sign * got[p] for p in order] != sorted((sign * v for v in got.values()), reverse=True):
        raise Failure(f"{what}: moves not listed best first for {mover}: {shot['listed']}")
    on_pits = {p["pit"]: p for p in shot["pits"]}
    if sorted(on_pits) != sorted(expected) or any(p["side"] != mover for p in shot["pits"]):
        raise Failure(f"{what}: legal pits on the board {shot['pits']}, expected {mover}'s {sorted(expected)}")
    for pit, value in expected.items():
        cell = on_pits[pit]
        outcome = "win" if sign * value > 0 else "loss" if sign * value < 0 else "draw"
        text = f"+{value}" if value > 0 else str(value)  # as the page writes it
        if cell["text"] != text or cell["outcome"] != outcome:
            raise Failure(f"{what}: pit {pit} shows {cell['text']!r} ({cell['outcome']}), expected {text} ({outcome})")


def wait_for(driver, ready, what):
    """The page's snapshot once ready(snapshot) holds; Failure after WAIT seconds."""
    end = time.monotonic() + WAIT
    shot = None
    while time.monotonic() < end:
        shot = driver.execute_script(SNAPSHOT)
        if ready(shot):
            return shot
        time.sleep(0.1)
    raise Failure(f"{what}: the page did not show it in {WAIT} s (board {shot and shot['board']}, "
                  f"status {shot and shot['status']!r})")


def run(server, driver):
    from selenium.webdriver.common.by import By
    start_values = label(START)
    driver.get(server.url + "?" + urllib.parse.urlencode({"position": START, "rules": "standard"}))
    shot = wait_for(driver, lambda s: s["board"] == START and s["listed"], "the start's moves")
    check_shot(shot, START, start_values, "start")

    # A sowing that passes the turn to North: the board, the mover and every value change.
    answer = server.api(pits=PITS, position=START, rules="standard")
    move = next(m for m in answer["moves"] if not m["extra_turn"])
    after = move["position"]
    after_values = label(after)
    if after_values == start_values:
        raise Failure(f"pit {move['pit']}: the values after it equal the start's, the test would not see a change")
    before = shot["listed"]
    driver.find_element(By.CSS_SELECTOR, f'#board td.legal[data-side="S"][data-pit="{move["pit"]}"]').click()
    shot = wait_for(driver, lambda s: s["board"] != START and s["listed"] and s["listed"] != before,
                    f"the position after pit {move['pit']}")
    check_shot(shot, after, after_values, f"after pit {move['pit']}")
    if driver.find_element(By.ID, "position").get_attribute("value") != after:
        raise Failure(f"after pit {move['pit']}: the position field does not show {after}")
    return move["pit"], after


def main():
    began = time.monotonic()
    if not KALAH or not os.access(KALAH, os.X_OK):
        print(f"browser test FAILED: KALAH_BINARY is not an executable: {KALAH!r}", file=sys.stderr)
        return 1
    import_selenium()
    for path, what in ((CHROMIUM, "chromium (Debian: chromium)"), (DRIVER, "chromedriver (Debian: chromium-driver)")):
        if not os.access(path, os.X_OK):
            skip(f"{what} not found at {path}")

    def out_of_time(signum, frame):
        raise Failure(f"the test took over {DEADLINE} s")
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(DEADLINE)
    server = driver = None
    try:
        server = Server()
        driver = browser()
        pit, after = run(server, driver)
        driver.quit()
        driver = None
        code = server.stop()
        server = None
        if code != 130:
            raise Failure(f"kalah serve exited with {code} after SIGINT, expected 130")
    except Failure as e:
        print(f"browser test FAILED: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # selenium's (no session, a lost element), urllib's, ...
        message = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print(f"browser test FAILED: {type(e).__name__}: {message}", file=sys.stderr)
        return 1
    finally:
        signal.alarm(0)
        if driver is not None:
            try:
                driver.quit()
            except Exception:
                pass
        if server is not None:
            server.stop()
    print(f"browser test passed: {START} and, after pit {pit}, {after} show kalah label's values "
          f"({time.monotonic() - began:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
