// Package briefing is the pipeline of the daily fieldforce briefing
// (docs/architecture.md), in the order a briefing travels through it:
//
//   - candidates.go: one cheap, time-zone-free SQL scan returns every org
//     that could be due, with its config and the dates whose scheduled
//     firing happened around now;
//   - tick.go: Go decides per org, with internal/schedule, whether its
//     briefing is due at now;
//   - enqueue.go: due briefings and their River generation jobs are inserted
//     in one transaction, the UNIQUE (org_id, briefing_date) key and
//     scheduled_at making a second scheduled firing impossible;
//   - jobs.go and generate.go: the generation job builds the snapshot as a
//     new revision, once per revision however often it runs;
//   - worker.go: the Worker that runs River, the tick and the periodic jobs;
//   - read.go: what the web shows, and "generate now".
//
// Time is always a parameter (the tick's now, the worker's clock), never
// now() or current_date in SQL that decides, so every rule is testable at any
// instant.
package briefing
