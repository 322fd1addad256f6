// The page's terminal: xterm.js on a WebSocket to this server, which runs the game's session
// (server/web/channel.py has the protocol).  Binary frames are the terminal's bytes both ways;
// text frames are JSON: hello, resize and bye from here; session and end from the server.
// A dropped connection is retried with the session's token, which brings this tab back to its
// game within the grace period.  The words come from the server (the #words block).
(() => {
  "use strict";
  const words = JSON.parse(document.getElementById("words").textContent);
  const $ = (id) => document.getElementById(id);
  const encoder = new TextEncoder();
  const state = { renderer: "dom", connected: false, linked: false, sessions: 0, closes: [] };

  const term = new Terminal({
    allowProposedApi: true,
    cursorBlink: false,
    scrollback: 0,
    fontSize: 15,
    fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, "Liberation Mono", monospace',
    theme: { background: "#0c0c0c" },
    macOptionIsMeta: true,
  });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.loadAddon(new Unicode11Addon.Unicode11Addon());
  term.unicode.activeVersion = "11";
  term.open($("terminal"));

  // The WebGL renderer, falling back on the DOM one when it cannot start or its context is lost.
  try {
    const webgl = new WebglAddon.WebglAddon();
    webgl.onContextLoss(() => {
      webgl.dispose();
      state.renderer = "dom";
    });
    term.loadAddon(webgl);
    state.renderer = "webgl";
  } catch (e) {
    state.renderer = "dom";
  }
  window.voltage = { term, state };  // (for the tests: the terminal's buffer is its text)

  // -- the connection -------------------------------------------------------------------
  let ws = null;
  let resume = sessionStorage.getItem("voltage-resume");
  let retries = 0;
  let retryTimer = null;
  let ended = false;

  function status(text, again) {
    $("status-text").textContent = text;
    $("again").hidden = !again;
    $("status").hidden = !text;
  }

  function connect() {
    clearTimeout(retryTimer);
    ended = false;
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const socket = new WebSocket(url);
    ws = socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      const lang = (navigator.language || "en").replace("-", "_") + ".UTF-8";
      socket.send(JSON.stringify({ type: "hello", cols: term.cols, rows: term.rows, resume, env: { LANG: lang } }));
    };
    socket.onmessage = (event) => {
      if (socket !== ws) return;
      if (typeof event.data !== "string") {
        term.write(new Uint8Array(event.data));
        return;
      }
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (message.type === "session") {
        term.reset();  // a new picture comes, whole (modes and all)
        state.sessions += 1;
        resume = message.resume;
        sessionStorage.setItem("voltage-resume", resume);
        state.connected = true;
        state.linked = !!message.linked;
        $("linked").hidden = !state.linked;
        retries = 0;
        status("", false);
        term.focus();
      } else if (message.type === "end") {
        ended = true;
      }
    };
    socket.onclose = (event) => {
      state.closes.push(event.code);
      if (socket !== ws) return;
      state.connected = false;
      if (ended || event.code === 1000 || event.code === 4001) {
        resume = null;
        sessionStorage.removeItem("voltage-resume");
        status(words.ended, true);
        return;
      }
      if (event.code === 4000) {
        status(words.moved, true);
        return;
      }
      retries += 1;
      status(retries > 3 && !resume ? words.refused : words.lost, false);
      retryTimer = setTimeout(connect, Math.min(10000, 500 * 2 ** Math.min(retries - 1, 5)));
    };
  }

  $("again").addEventListener("click", () => {
    status(words.connecting, false);
    if (ws && ws.readyState === WebSocket.OPEN) ws.close(1000);
    resume = null;
    sessionStorage.removeItem("voltage-resume");
    term.reset();
    connect();
  });

  // -- input: typed keys (batched, at most one message per 10 ms) and sizes -------------------
  const PIECE = 32 * 1024;
  let queued = [];
  let flushTimer = null;
  let lastSent = 0;

  function flush() {
    flushTimer = null;
    if (!queued.length || !ws || ws.readyState !== WebSocket.OPEN) {
      queued = [];
      return;
    }
    const total = queued.reduce((n, part) => n + part.length, 0);
    const data = new Uint8Array(total);
    let at = 0;
    for (const part of queued) {
      data.set(part, at);
      at += part.length;
    }
    queued = [];
    lastSent = performance.now();
    // (in pieces under the server's largest message, 64 KiB: a bigger one closes the session as abuse)
    for (let from = 0; from < data.length; from += PIECE) ws.send(data.subarray(from, from + PIECE));
  }

  function send(bytes) {
    queued.push(bytes);
    if (flushTimer !== null) return;
    const wait = lastSent + 10 - performance.now();
    if (wait <= 0) flush();
    else flushTimer = setTimeout(flush, wait);
  }

  term.onData((data) => send(encoder.encode(data)));
  term.onBinary((data) => send(Uint8Array.from(data, (ch) => ch.charCodeAt(0) & 255)));

  let resizeTimer = null;
  term.onResize(({ cols, rows }) => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {  // (once a drag ends: the server takes one resize a second)
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "resize", cols, rows }));
    }, 250);
  });
  // The game needs 80x24: on a small screen (a phone) the font shrinks until they fit.
  const FONT = 15;
  const NEED = { cols: 80, rows: 24 };
  const refit = () => {
    try {
      if (term.options.fontSize !== FONT) term.options.fontSize = FONT;
      const room = fit.proposeDimensions();
      if (room && (room.cols < NEED.cols || room.rows < NEED.rows)) {
        const scale = Math.min(room.cols / NEED.cols, room.rows / NEED.rows);
        term.options.fontSize = Math.max(6, Math.floor(FONT * scale * 10) / 10);
      }
      fit.fit();
    } catch (e) {
      /* not laid out yet */
    }
  };
  new ResizeObserver(refit).observe($("screen"));
  window.addEventListener("resize", refit);

  // -- the keys row (a phone's keyboard has no Esc or arrows) -----------------------------
  const ARROWS = { up: "A", down: "B", right: "C", left: "D" };
  function sequence(button) {
    if (button.dataset.text) return button.dataset.text;
    const key = button.dataset.key;
    if (key in ARROWS) return (term.modes.applicationCursorKeysMode ? "\x1bO" : "\x1b[") + ARROWS[key];
    return { escape: "\x1b", enter: "\r", space: " " }[key] || "";
  }
  for (const button of document.querySelectorAll("#keys button")) {
    button.addEventListener("pointerdown", (event) => event.preventDefault());  // keep the terminal's focus
    button.addEventListener("click", () => {
      send(encoder.encode(sequence(button)));
      term.focus();
    });
  }

  // -- linking this browser to a key -------------------------------------------------------
  const dialog = $("link-dialog");
  $("link-open").addEventListener("click", () => {
    $("link-error").textContent = "";
    $("link-code").value = "";
    dialog.showModal();
    $("link-code").focus();
  });
  $("link-cancel").addEventListener("click", () => {
    dialog.close();
    term.focus();
  });
  $("link-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const code = $("link-code").value.trim();
    if (!code) return;
    $("link-submit").disabled = true;
    let answer;
    try {
      answer = await fetch("/link", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code }),
        credentials: "same-origin",
      });
    } catch (e) {
      answer = null;
    }
    $("link-submit").disabled = false;
    if (answer && answer.ok) {
      dialog.close();
      // This tab plays as the key from now on: leave the guest's session, start the key's.
      const old = ws;
      ws = null;
      if (old && old.readyState === WebSocket.OPEN) {
        old.send(JSON.stringify({ type: "bye" }));
        old.close(1000);
      }
      resume = null;
      sessionStorage.removeItem("voltage-resume");
      term.reset();
      state.sessions = 0;
      connect();
      return;
    }
    const status = answer ? answer.status : 0;
    $("link-error").textContent = status === 403 || status === 400 ? words.link_wrong
      : status === 429 ? words.link_slow : words.link_failed;
  });

  refit();
  status(words.connecting, false);
  connect();
  term.focus();
})();
