"""Lab check: every lab as a learner uses it, in a real JupyterLab driven by headless Chromium.

    python scripts/lab_check.py                     # every labs/**/*.ipynb
    python scripts/lab_check.py labs/calculator.ipynb --out _build/lab-check

For each lab: start JupyterLab on 127.0.0.1 (a free port, a random token) over a temporary copy of
``labs/`` (Run All in a browser must never rewrite the committed notebooks), open the notebook,
"Run All", then, in every widget the run drew, operate one control (a dropdown, a toggle, a button,
a combobox or a slider, the first that changes what the widget shows) and check that its output
changed. It fails when a cell's output is an error or a stderr stream, when the kernel sends an
error or a stderr line while the widgets are operated, when a widget shows an error (⚠), is not
drawn, or does not respond. JupyterLab is stopped whatever happens.

Needs Debian's ``chromium`` (``/usr/bin/chromium``; ``apt-get install -y chromium fonts-noto-cjk``)
and the ``playwright`` Python package (requirements-ci.txt); never ``playwright install``.
A new lab of a later chapter (labs/<chapter>/*.ipynb) joins automatically.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
START_TIMEOUT_S = 120      # JupyterLab up and answering
RUN_ALL_TIMEOUT_S = 900    # one lab's Run All (the slowest lab takes about a minute on 2 cores)
RESPONSE_TIMEOUT_S = 20    # one control -> the widget's output changed (else the next control is tried)
# A kernel message on the websocket that is an error or a line on stderr (JSON with or without spaces)
BAD_FRAME = re.compile(rb'"msg_type":\s*"error"|"name":\s*"stderr"')


def discover(root: Path = REPO) -> list[Path]:
    return sorted(p for p in (root / "labs").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# JupyterLab settings for the check: every cell stays in the page (no windowing), no news prompt.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
}


def write_settings(directory: Path) -> None:
    for name, values in SETTINGS.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


class JupyterLab:
    """JupyterLab on 127.0.0.1 over ``root``, in its own process group; ``stop`` ends that group."""

    def __init__(self, root: Path, scratch: Path):
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.log_path = scratch / "jupyterlab.log"
        env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="0", JUPYTER_CONFIG_DIR=str(scratch / "config"),
                   JUPYTER_RUNTIME_DIR=str(scratch / "runtime"), JUPYTER_DATA_DIR=str(scratch / "data"),
                   JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
                   JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"))
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               f"--IdentityProvider.token={self.token}", "--allow-root", f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
               "--LabApp.expose_app_in_browser=True", "--LabApp.extension_manager=readonly", "--LabApp.check_for_updates_class="
               "jupyterlab.NeverCheckForUpdate"]
        write_settings(scratch / "settings")
        self.log = open(self.log_path, "w", encoding="utf-8")
        self.process = subprocess.Popen(cmd, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.process.returncode}; log: {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.base}/api/status?token={self.token}", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"JupyterLab did not answer within {START_TIMEOUT_S} s; log: {self.log_path}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)  # the server and the kernels it started
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=15)
        self.log.close()


# -- in the page --------------------------------------------------------------------------------

KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(k && k.status === 'idle' && w.content && w.content.widgets.length);
}"""

RUN_ALL = """async () => {
  const w = window.jupyterapp.shell.currentWidget;
  await w.sessionContext.ready;
  return await window.jupyterapp.commands.execute('notebook:run-all-cells');
}"""

# Every code cell's outputs as the notebook model holds them: errors and stderr streams are problems.
BAD_OUTPUTS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const out = [];
  w.content.widgets.forEach((cell, i) => {
    if (cell.model.type !== 'code') return;
    if (cell.model.executionCount === null) out.push(`cell ${i}: not executed`);
    for (const o of cell.model.outputs.toJSON()) {
      if (o.output_type === 'error') out.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') out.push(`cell ${i}: stderr: ${String(o.text).slice(0, 300)}`);
    }
  });
  return out;
}"""

# Widget cells that show text instead of the widget (no widget manager, or a view that failed)
UNDRAWN = """() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll('.jp-OutputArea-output')].filter(e =>
  /控件还没画出来|Error displaying widget|Loading widget/.test(e.innerText)).length"""

# A widget as a learner first sees it: every dropdown on a choice, text panels that scroll instead of
# growing the page (a few hundred pixels at most).
PANEL_MAX_PX = 600
LAYOUT = """(root) => {
  const out = [];
  root.querySelectorAll('select').forEach(s => {
    if (s.options.length && s.selectedIndex < 0) out.push('a dropdown starts with nothing selected');
  });
  root.querySelectorAll('pre, .widget-html-content').forEach(e => {
    if (e.getBoundingClientRect().height > %d
        && !e.querySelector('.js-plotly-plot')) out.push(`a text panel ${Math.round(e.getBoundingClientRect().height)} px tall`);
  });
  return out;
}""" % PANEL_MAX_PX

# The notebook on show (other tabs a restored workspace may hold are hidden)
CURRENT = ".jp-NotebookPanel:not(.lm-mod-hidden)"
SHUTDOWN = "() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()"

# What a widget shows: its text and the values of its text boxes (a combobox fills the editor).
SNAPSHOT = """(root) => {
  const boxes = [...root.querySelectorAll('textarea, input[type=text], input:not([type])')].map(e => e.value);
  return root.innerText + '\\n' + boxes.join('\\n');
}"""


def label_of(control) -> str:
    """The control's label as a learner reads it (its description, or a button's text)."""
    return control.evaluate("""(e) => {
      const box = e.closest('.widget-inline-hbox, .widget-inline-vbox, .widget-toggle-buttons, .widget-hslider');
      const label = box && box.querySelector('.widget-label');
      return ((label && label.innerText) || e.innerText || e.getAttribute('placeholder') || e.tagName).trim();
    }""")


def candidates(root):
    """Controls to operate, in order: each yields (kind, label, act) where act() changes it once."""
    for select in root.locator("select").all():
        if select.is_disabled():
            continue
        n = select.locator("option").count()
        if n < 2:
            continue
        current = select.evaluate("e => e.selectedIndex")
        target = (current + 1) % n if current >= 0 else 0
        yield "选择框", label_of(select), lambda s=select, t=target: s.select_option(index=t)
    for button in root.locator(".widget-toggle-button:not(.mod-active)").all():
        if button.is_enabled():
            yield "切换按钮", button.inner_text().strip(), lambda b=button: b.click()
    for combo in root.locator("input[list]").all():
        options = combo.evaluate("e => [...(e.list ? e.list.options : [])].map(o => o.value)")
        others = [o for o in options if o != combo.input_value()]
        if others:
            yield "组合框", label_of(combo), lambda c=combo, v=others[0]: (c.fill(v), c.press("Enter"))
    for button in root.locator("button.widget-button").all():
        if button.is_enabled():
            yield "按钮", button.inner_text().strip(), lambda b=button: b.click()
    for handle in root.locator(".widget-slider .noUi-handle").all():
        yield "滑块", label_of(handle), lambda h=handle: (h.focus(), h.press("ArrowLeft"))


def operate(page, root) -> tuple[str, float]:
    """Operate controls of one widget until its output changes; (which control(s), seconds)."""
    before = root.evaluate(SNAPSHOT)
    tried = []
    for kind, label, act in candidates(root):
        start = time.monotonic()
        act()
        while time.monotonic() - start < RESPONSE_TIMEOUT_S:
            page.wait_for_timeout(200)
            now = root.evaluate(SNAPSHOT)
            if now != before:
                page.wait_for_timeout(500)  # let the rest of the redraw arrive
                first = f"(先试了 {', '.join(tried)},输出没变)" if tried else ""
                return f"{kind}「{label}」{first}", time.monotonic() - start
        tried.append(f"{kind}「{label}」")
        if len(tried) >= 4:
            break
    raise AssertionError(f"no control changed the widget's output (tried {', '.join(tried) or 'nothing'})")


def check_lab(context, lab: JupyterLab, rel: str, out: Path) -> tuple[list[str], list[str]]:
    """Run one lab; (what was done, problems)."""
    done, problems, frames = [], [], []
    page = context.new_page()
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
        payload if isinstance(payload, bytes) else payload.encode("utf-8", "replace"))))
    page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
    try:
        page.goto(f"{lab.base}/lab/tree/{rel}?reset&token={lab.token}", wait_until="domcontentloaded", timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=START_TIMEOUT_S * 1000, polling=500)
        start = time.monotonic()
        page.evaluate(RUN_ALL)
        page.wait_for_function(KERNEL_IDLE, timeout=RUN_ALL_TIMEOUT_S * 1000, polling=500)
        done.append(f"Run All {time.monotonic() - start:.1f} s")
        problems += page.evaluate(BAD_OUTPUTS)
        roots = page.locator(f"{CURRENT} .jp-OutputArea-output > .jupyter-widgets")
        undrawn = page.evaluate(UNDRAWN)
        if undrawn:
            problems.append(f"{undrawn} widget(s) not drawn (the cell shows text instead)")
        frames.clear()  # from here on, anything the kernel says on stderr comes from a control
        for i in range(roots.count()):
            root = roots.nth(i)
            root.scroll_into_view_if_needed()
            problems += [f"widget {i + 1}: {p}" for p in root.evaluate(LAYOUT)]
            try:
                control, seconds = operate(page, root)
                done.append(f"widget {i + 1}: {control} → 输出变了({seconds:.1f} s)")
            except AssertionError as err:
                problems.append(f"widget {i + 1}: {err}")
            text = root.inner_text()
            if "⚠" in text or "Traceback" in text:
                problems.append(f"widget {i + 1} shows an error: {text[text.find('⚠'):][:300]}")
        page.wait_for_timeout(500)
        problems += [f"kernel said while the widgets were operated: {f[:300]!r}" for f in frames if BAD_FRAME.search(f)]
    except Exception as err:  # a timeout or a missing element: report it, keep checking the other labs
        problems.append(f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
    finally:
        try:  # this lab's kernel is no longer needed
            page.evaluate(SHUTDOWN)
        except Exception:
            pass
        try:
            page.screenshot(path=str(out / (rel.replace("/", "__") + ".png")), full_page=True)
        except Exception:
            pass
        page.close()
    return done, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", type=Path, help="notebooks (default: every labs/**/*.ipynb)")
    parser.add_argument("--out", default=REPO / "_build" / "lab-check", type=Path, help="screenshots and the log")
    args = parser.parse_args(argv)
    labs = [p.resolve() for p in args.labs] or discover()
    if not labs:
        print("lab_check: no lab notebooks found under labs/", file=sys.stderr)
        return 1
    if not Path(CHROMIUM).is_file():
        print(f"lab_check: {CHROMIUM} missing: apt-get install -y chromium fonts-noto-cjk", file=sys.stderr)
        return 1
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("lab_check: the playwright package is missing: pip install -r requirements-ci.txt", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    # CI stopping the check (SIGTERM) must still run the finally blocks that stop JupyterLab
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    failures, started = 0, time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lab-check-") as tmp:
        tmp = Path(tmp)
        root = tmp / "root"
        shutil.copytree(REPO / "labs", root / "labs", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        lab = JupyterLab(root, tmp)
        try:
            lab.wait_ready()
            with sync_playwright() as pw:
                context = pw.chromium.launch_persistent_context(
                    str(tmp / "chromium"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                    viewport={"width": 1400, "height": 1000}, locale="zh-CN")
                try:
                    for path in labs:
                        rel = path.relative_to(REPO).as_posix()
                        lab_start = time.monotonic()
                        done, problems = check_lab(context, lab, rel, args.out)
                        status = "ok" if not problems else "FAILED"
                        print(f"{rel}: {status} ({time.monotonic() - lab_start:.0f} s)", flush=True)
                        for line in done:
                            print(f"    {line}", flush=True)
                        for line in problems:
                            print(f"    PROBLEM: {line}", file=sys.stderr, flush=True)
                        failures += bool(problems)
                finally:
                    context.close()
        except Exception as err:
            print(f"lab_check: {type(err).__name__}: {err}", file=sys.stderr)
            failures += 1
        finally:
            lab.stop()
            shutil.copy(lab.log_path, args.out / "jupyterlab.log")
    took = time.monotonic() - started
    if failures:
        print(f"lab_check: FAILED ({failures} of {len(labs)} lab(s)), {took:.0f} s; screenshots and the "
              f"JupyterLab log in {args.out}", file=sys.stderr)
        return 1
    print(f"lab_check: passed ({len(labs)} lab(s)), {took:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
