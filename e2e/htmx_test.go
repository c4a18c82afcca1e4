package e2e

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Checks that something did NOT happen after an htmx request ("the late
// search did not reopen the list") cannot poll for it; they wait instead
// until the page's htmx work is over, seen through htmx's own events, and
// then look. A fixed sleep would pass without testing anything on a machine
// slow enough for the answer to come after it.

// watchHTMX starts recording the htmx activity of the page now open (call it
// after the page loaded; a navigation drops the record, and calling it again
// on the same page does nothing):
//
//   - for each element, its value-changing input events and how many of them
//     its trigger had seen when it last fired (htmx:trigger): an element
//     whose own hx-trigger is "input changed delay:…" has a request scheduled
//     while the first count is ahead;
//   - every request htmx was about to make (htmx:beforeRequest), with
//     whether a handler stopped it, and how it ended (htmx:afterRequest,
//     htmx:sendAbort, htmx:sendError, htmx:timeout, htmx:onLoadError) and
//     where its answer was swapped (htmx:afterSwap).
//
// The listeners sit on window, in the bubbling phase, so they run after the
// app's own (static/app.js listens on document) and see what it decided.
func (s *session) watchHTMX() {
	s.t.Helper()
	s.do("watch the page's htmx requests", chromedp.Evaluate[chromedp.Void](`(() => {
		if (window.__e2eHtmx) return;
		const key = (el) => !el ? "" : el.id ? el.id : el.tagName ? el.tagName.toLowerCase() : String(el);
		const w = window.__e2eHtmx = {
			changes: {},          // element id -> value-changing input events
			fired: {},            // element id -> changes[id] when its trigger last fired
			last: {},             // element id -> value at its last counted input event
			requests: [],         // in the order htmx was about to send them
			pending: new Set(),   // requests sent and not ended
			byXHR: new WeakMap(),
		};
		window.addEventListener("input", (ev) => {
			const k = key(ev.target);
			if (!k || typeof ev.target.value !== "string" || w.last[k] === ev.target.value) return;
			w.last[k] = ev.target.value;
			w.changes[k] = (w.changes[k] || 0) + 1;
		}, true);
		window.addEventListener("htmx:trigger", (ev) => {
			const k = key(ev.target);
			w.fired[k] = w.changes[k] || 0;
		});
		window.addEventListener("htmx:beforeRequest", (ev) => {
			const d = ev.detail;
			const te = d.requestConfig && d.requestConfig.triggeringEvent;
			const r = {
				elt: key(d.elt),
				path: (d.pathInfo && (d.pathInfo.finalRequestPath || d.pathInfo.requestPath)) || "",
				trigger: te ? te.type + (te.target && te.target.id ? " on #" + te.target.id : "") : "",
				state: ev.defaultPrevented ? "dropped" : "sent",
				status: 0,
				swappedInto: "",
			};
			w.requests.push(r);
			if (!ev.defaultPrevented && d.xhr) {
				w.byXHR.set(d.xhr, r);
				w.pending.add(r);
			}
		});
		const ended = (state) => (ev) => {
			const r = ev.detail && ev.detail.xhr && w.byXHR.get(ev.detail.xhr);
			if (!r) return;
			r.state = state;
			r.status = ev.detail.xhr.status;
			w.pending.delete(r);
		};
		// An abort, error or timeout fires afterRequest first, then its own event.
		window.addEventListener("htmx:afterRequest", ended("answered"));
		window.addEventListener("htmx:sendAbort", ended("aborted"));
		window.addEventListener("htmx:sendError", ended("failed"));
		window.addEventListener("htmx:timeout", ended("timed out"));
		window.addEventListener("htmx:onLoadError", ended("load error"));
		window.addEventListener("htmx:afterSwap", (ev) => {
			const r = ev.detail.xhr && w.byXHR.get(ev.detail.xhr);
			if (r) r.swappedInto = key(ev.detail.target);
		});
		w.busy = (id) => {
			const why = [];
			if ((w.changes[id] || 0) > (w.fired[id] || 0)) why.push("#" + id + " was changed since its trigger last fired");
			for (const r of w.pending) why.push("in flight: " + r.elt + " " + r.path);
			return why.join("; ");
		};
	})()`))
}

// waitHTMXIdle waits until every request the page's htmx started has ended
// and no request of the input with id is still scheduled by its delayed
// trigger (see watchHTMX). When it returns, every answer that was coming has
// been swapped in or thrown away.
func (s *session) waitHTMXIdle(id string) {
	s.t.Helper()
	expr := `window.__e2eHtmx ? window.__e2eHtmx.busy(` + jsString(id) + `) : "not watching: watchHTMX was not called on this page"`
	var last string
	until := time.Now().Add(stepTimeout)
	for {
		busy, err := eval[string](s, expr)
		if err == nil {
			if busy == "" {
				s.e.trace("%s: htmx idle", s.name)
				return
			}
			last = busy
		} else {
			last = err.Error()
		}
		if time.Now().After(until) {
			ctx, cancel := context.WithTimeout(s.tab, 2*time.Second)
			all, _ := chromedp.Run(ctx, chromedp.Evaluate[[]htmxRequest](`window.__e2eHtmx ? window.__e2eHtmx.requests : []`))
			cancel()
			s.t.Fatalf("%s: waited "+stepTimeout.String()+" for the page's htmx requests to end: %s\nrequests: %v", s.name, last, all)
		}
		time.Sleep(pollEvery)
	}
}

// htmxRequest is one request htmx was about to make on a watched page.
type htmxRequest struct {
	Elt         string `json:"elt"`         // id (or tag) of the element that made it
	Path        string `json:"path"`        // with the query of a GET
	Trigger     string `json:"trigger"`     // "input on #timezone", "zone-picked on #timezone", …
	State       string `json:"state"`       // dropped (by a beforeRequest handler), sent, answered, aborted, failed, …
	Status      int    `json:"status"`      // HTTP status of the answer
	SwappedInto string `json:"swappedInto"` // id of the element the answer replaced, if it was swapped
}

// param is a query parameter of the request.
func (r htmxRequest) param(name string) string {
	u, err := url.Parse(r.Path)
	if err != nil {
		return ""
	}
	return u.Query().Get(name)
}

func (r htmxRequest) String() string {
	var b strings.Builder
	b.WriteString(r.Elt + " " + r.Path + " (" + r.Trigger + "): " + r.State)
	if r.SwappedInto != "" {
		b.WriteString(", swapped into #" + r.SwappedInto)
	}
	return b.String()
}

// htmxRequests are the requests of the element with id (all of them for "")
// recorded since watchHTMX, oldest first.
func (s *session) htmxRequests(id string) []htmxRequest {
	s.t.Helper()
	all, err := eval[[]htmxRequest](s, `window.__e2eHtmx ? window.__e2eHtmx.requests : []`)
	if err != nil {
		s.t.Fatalf("%s: read the htmx requests: %v", s.name, err)
	}
	if id == "" {
		return all
	}
	var mine []htmxRequest
	for _, r := range all {
		if r.Elt == id {
			mine = append(mine, r)
		}
	}
	return mine
}
