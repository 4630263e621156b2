/* RSSHub Agent dashboard: progressive enhancement only; every page works without it. */
(function () {
  "use strict";

  var TERMINAL_KINDS = ["brief_ready", "run_failed", "run_cancelled"];
  /* The words this script writes, from the djangojs catalog (/jsi18n/, loaded before it);
     English when that catalog did not load. */
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (whole, name) { return String(values[name]); });
  };
  var CONNECTION_WORDS = { live: gettext("live"), closed: gettext("closed"), reconnecting: gettext("reconnecting") };
  var CLOSE_NOT_SIGNED_IN = 4401, CLOSE_NOT_YOURS = 4403, CLOSE_GONE = 4410;

  function cookie(name) {
    var found = document.cookie.split("; ").filter(function (c) { return c.indexOf(name + "=") === 0; })[0];
    return found ? found.slice(name.length + 1) : null;
  }

  /* Time zone: the server renders times in the zone named by the "tz" cookie. The browser's
     zone is written only when there is none (the sign-in page does it before the first page
     with times); the server writes the profile's zone over it at sign-in and when the profile
     changes (accounts/preferences.py), so no page reloads itself to learn the zone. */
  function rememberTimeZone() {
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone || cookie("tz")) return;
    document.cookie = "tz=" + zone + "; path=/; max-age=31536000; samesite=lax";
  }

  function autosubmit() {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    });
  }

  function copyButtons(root) {
    root.querySelectorAll("button[data-copy]").forEach(function (button) {
      button.addEventListener("click", function () {
        var text = JSON.parse(document.getElementById(button.dataset.copy).textContent);
        var done = function () {
          var label = button.textContent;
          button.textContent = button.dataset.done || gettext("Copied");
          setTimeout(function () { button.textContent = label; }, 1500);
        };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { copyByHand(text); done(); });
        } else {
          copyByHand(text);
          done();
        }
      });
    });
  }

  function copyByHand(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(area);
  }

  /* A form with data-confirm asks first; once confirmed, its "ask_first" field goes, so the
     server acts at once (without this script the server shows its confirmation page). */
  function confirmForms(root) {
    root.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.confirm(form.dataset.confirm)) { event.preventDefault(); return; }
        var askFirst = form.querySelector("input[name=ask_first]");
        if (askFirst) askFirst.remove();
      });
    });
  }

  function elapsedText(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    if (h) return interpolate(gettext("%(h)s h %(m)s min"), { h: h, m: m }, true);
    if (m) return interpolate(gettext("%(m)s min %(s)s s"), { m: m, s: s }, true);
    return interpolate(gettext("%(s)s s"), { s: s }, true);
  }

  function elapsedClock() {
    var node = document.getElementById("elapsed");
    if (!node) return;
    var tick = function () {
      var since = Date.parse(node.dataset.since);
      if (!isNaN(since)) node.textContent = elapsedText((Date.now() - since) / 1000);
    };
    tick();
    setInterval(tick, 1000);
  }

  /* The finished brief, rendered by the server as on its page, in place of the live one. */
  function swapInBrief(url) {
    if (!url || !window.fetch) return Promise.reject(new Error("no fragment"));
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (response) {
      if (!response.ok || response.redirected) throw new Error("no fragment: " + response.status);
      return response.text();
    }).then(function (html) {
      var holder = document.createElement("template");
      holder.innerHTML = html;
      var article = holder.content.getElementById("brief");
      var current = document.getElementById("brief");
      if (!article || !current) throw new Error("no brief in the fragment");
      current.replaceWith(article);
      copyButtons(article);
      confirmForms(article);
      followUpInPlace(article);
    });
  }

  /* The live timeline: replay after the last seq shown, then every new step, once each. */
  function liveTimeline() {
    var live = document.getElementById("live");
    var timeline = document.getElementById("timeline");
    if (!live || !timeline) return;
    var lastSeq = parseInt(live.dataset.after, 10) || 0;
    var finished = false, socket = null, retry = 500, finishTimer = null;
    var connection = document.getElementById("connection");
    var count = document.getElementById("step-count");

    function setConnection(state) {
      if (connection) { connection.dataset.state = state; connection.textContent = CONNECTION_WORDS[state] || state; }
    }

    function finish() {
      if (finished) return;
      finished = true;
      if (socket) socket.close(1000);
      // The server renders the finished brief: swap its article in; reload if that fails.
      swapInBrief(live.dataset.fragment).catch(function () { location.reload(); });
    }

    function onStep(message) {
      if (message.seq <= lastSeq) return;  // already shown
      if (message.seq !== lastSeq + 1) {  // a gap: reconnect, the server replays from lastSeq
        socket.close(1000);
        return;
      }
      timeline.insertAdjacentHTML("beforeend", message.html);
      lastSeq = message.seq;
      live.dataset.after = String(lastSeq);
      if (count) count.textContent = String(timeline.children.length);
      if (TERMINAL_KINDS.indexOf(message.kind) !== -1) finish();
    }

    function onStatus(message) {
      var badge = document.querySelector("#brief-status .badge");
      if (badge) {
        badge.dataset.status = message.status;
        badge.textContent = message.status_label;
        badge.className = "badge tone-" + ({ running: "live", failed: "bad", cancelled: "warn" }[message.status] || "plain");
      }
      var queueLine = document.getElementById("queue-line");
      if (queueLine) {
        queueLine.hidden = message.queue_position === null;
        document.getElementById("queue-position").textContent = message.queue_position === null ? "" : message.queue_position;
      }
      var elapsed = document.getElementById("elapsed");
      if (elapsed && message.started_at) elapsed.dataset.since = message.started_at;
      // A final brief has nothing left to cancel: the notice that promised it goes.
      var notice = document.getElementById("cancel-notice");
      if (message.finished && notice) notice.remove();
      // The closing step follows the status change; reload without it if it does not come.
      if (message.finished && !finishTimer) finishTimer = setTimeout(finish, 2000);
    }

    function connect() {
      var scheme = location.protocol === "https:" ? "wss:" : "ws:";
      var url = scheme + "//" + location.host + live.dataset.ws + "?after=" + lastSeq + "&lang=" + encodeURIComponent(live.dataset.lang || "");
      socket = new WebSocket(url);
      socket.onopen = function () { retry = 500; setConnection("live"); };
      socket.onmessage = function (event) {
        var message = JSON.parse(event.data);
        if (message.type === "step") onStep(message);
        else if (message.type === "status") onStatus(message);
      };
      socket.onclose = function (event) {
        if (finished) return;
        if (event.code === CLOSE_NOT_SIGNED_IN) { location.reload(); return; }
        if (event.code === CLOSE_NOT_YOURS || event.code === CLOSE_GONE) { setConnection("closed"); return; }
        setConnection("reconnecting");
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 10000);
      };
    }
    connect();
  }

  /* A brief kept above its follow-up as the thread's earlier turn: its answer and sources
     stay; its controls, log and ids go (the follow-up's article has the same ids), and its
     in-page links, which would now point into the follow-up, become plain text. */
  function threadTurn(article) {
    ["live", "follow-up", "coverage", "usage", "actions", "share", "steps-section"].forEach(function (id) {
      var part = article.querySelector("#" + id);
      if (part) part.remove();
    });
    article.querySelectorAll("a[href^='#']").forEach(function (link) { link.removeAttribute("href"); });
    article.querySelectorAll("[id]").forEach(function (node) { node.removeAttribute("id"); });
    var title = article.querySelector("h1");
    if (title) {
      var turn = document.createElement("h2");
      turn.className = "thread-question";
      turn.textContent = title.textContent;
      title.replaceWith(turn);
    }
    article.removeAttribute("id");
    article.classList.add("thread-turn");
  }

  /* The follow-up box and the suggested questions: the follow-up starts under this brief and
     runs live here; the address becomes the follow-up's. Without script (or if this fails),
     the form posts and the browser goes to the follow-up's page. */
  function followUpInPlace(root) {
    root.querySelectorAll("form[data-in-place]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        if (!window.fetch || !window.history.pushState) return;
        event.preventDefault();
        var buttons = form.querySelectorAll("button");
        buttons.forEach(function (b) { b.disabled = true; });
        var error = document.getElementById("follow-up-error");
        fetch(form.action, {
          method: "POST", body: new FormData(form), credentials: "same-origin",
          headers: { Accept: "application/json" }
        }).then(function (response) {
          return response.json().then(function (body) { return { ok: response.status === 201, body: body }; });
        }).then(function (answer) {
          if (!answer.ok) {
            buttons.forEach(function (b) { b.disabled = false; });
            if (error) { error.textContent = answer.body.message || ""; error.hidden = false; }
            return null;
          }
          return fetch(answer.body.fragment, { credentials: "same-origin", headers: { Accept: "text/html" } })
            .then(function (response) { return response.text(); })
            .then(function (html) { showFollowUp(html, answer.body.url); });
        }).catch(function () { form.submit(); });
      });
    });
  }

  function showFollowUp(html, url) {
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var article = holder.content.getElementById("brief");
    var current = document.getElementById("brief");
    if (!article || !current) { location.assign(url); return; }
    threadTurn(current);
    current.after(article);
    history.pushState({ brief: article.dataset.brief }, "", url);
    // Back (or forward) shows that address's own page: the thread here is this visit's.
    if (!window.__threadBack) {
      window.__threadBack = true;
      window.addEventListener("popstate", function () { location.reload(); });
    }
    copyButtons(article);
    confirmForms(article);
    followUpInPlace(article);
    article.scrollIntoView({ block: "start" });
    liveTimeline();
    elapsedClock();
  }

  /* The question box: Enter or Ctrl/Cmd+Enter asks; Shift+Enter starts a new line. A key that
     ends an input-method composition (Chinese, Japanese) only confirms the characters. */
  function enterSubmits() {
    var form = document.getElementById("ask-form");
    var box = form && form.querySelector("textarea");
    if (!box) return;
    box.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.shiftKey || event.altKey) return;
      if (event.isComposing || event.keyCode === 229) return;
      event.preventDefault();
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  }

  /* The watch form shows the fields of the schedule chosen (data-schedules: the schedules a
     field counts for); the others are hidden and disabled, and the server ignores them anyway. */
  function scheduleFields(root) {
    root.querySelectorAll("[data-schedule-form]").forEach(function (group) {
      var select = group.querySelector("select[name=schedule]");
      if (!select) return;
      var show = function () {
        group.querySelectorAll("[data-schedules]").forEach(function (field) {
          var counts = field.dataset.schedules.split(" ").indexOf(select.value) !== -1;
          field.hidden = !counts;
          field.querySelectorAll("input, select").forEach(function (input) {
            input.disabled = !counts;
            input.required = counts;
          });
        });
      };
      select.addEventListener("change", show);
      show();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    rememberTimeZone();
    liveTimeline();  // first: the socket's handshake overlaps the rest
    autosubmit();
    enterSubmits();
    copyButtons(document);
    confirmForms(document);
    followUpInPlace(document);
    scheduleFields(document);
    elapsedClock();
  });
})();
