"""Headless Chromium driven over its DevTools pipe (--remote-debugging-pipe:
JSON messages ended by NUL on file descriptors 3 and 4), with nothing but
Python's standard library: open a page at a width, evaluate script in it,
see every request it made, take a screenshot."""

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time


class Browser:
    def __init__(self):
        exe = os.environ.get("CHROMIUM_BIN") or shutil.which("chromium") or shutil.which("chromium-browser")
        assert exe, "Chromium (apt-get install chromium)"
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def fds():
            # Through high numbers first: a pipe may already be 3 or 4,
            # and dup2 onto itself would keep it closed on exec.
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 100)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 100)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._profile = tempfile.mkdtemp()
        self._p = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
             "--no-first-run", "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-default-apps"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._id = 0
        self._buf = b""
        self.events = []

    def _send(self, method, params=None, session=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _recv(self, timeout=60):
        end = time.time() + timeout
        while b"\0" not in self._buf:
            assert time.time() < end, "Chromium did not answer"
            chunk = os.read(self._r, 1 << 20)
            assert chunk, "Chromium closed its pipe"
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        want = self._send(method, params, session)
        while True:
            m = self._recv()
            if m.get("id") == want:
                assert "error" not in m, m
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        for k, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(k)
        end = time.time() + timeout
        while time.time() < end:
            m = self._recv(timeout)
            if m.get("method") == method:
                return m
            self.events.append(m)
        raise AssertionError(f"no {method}")

    def open(self, url, width, height, mobile=False):
        """A new page of `width` CSS pixels at `url`, loaded: its session."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Network.enable", session=session)
        self.call("Page.enable", session=session)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
                  session=session)
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired")
        return session

    def requests(self):
        """The URLs the pages asked for since the last open."""
        return [m["params"]["request"]["url"] for m in self.events
                if m.get("method") == "Network.requestWillBeSent"]

    def eval(self, session, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        assert "exceptionDetails" not in r, r
        return r["result"].get("value")

    def screenshot(self, session, path):
        r = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self._send("Browser.close")
            self._p.wait(timeout=20)
        except Exception:
            self._p.kill()
        shutil.rmtree(self._profile, ignore_errors=True)
