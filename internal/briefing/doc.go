// Package briefing is the ADR-0024 pipeline for the daily fieldforce
// briefing, in the order a briefing travels through it:
//
//   - candidates.go: one cheap, time-zone-free SQL scan returns every org
//     that could be due, with its config and the briefing dates it already has
//     around now;
//   - tick.go: Go decides per org, with internal/schedule, whether its
//     briefing is due at now;
//   - enqueue.go: due briefings and their generation jobs are inserted
//     together, the UNIQUE (org_id, briefing_date) key making duplicates
//     impossible;
//   - jobs.go and generate.go: workers claim jobs and build the snapshot;
//   - read.go: what the web shows, and "generate now".
//
// Time is always a parameter (the tick's now, the runner's clock), never
// now() or current_date in SQL that decides, so every rule is testable at any
// instant.
package briefing
