// Package tick is the once-a-minute pass of the briefing pipeline
// (docs/scheduling.md, "The tick"), in the order it runs:
//
//   - candidates.go: one cheap, time-zone-free SQL scan returns every org
//     that could be due, with its config and the dates whose scheduled
//     firing happened around now;
//   - decide.go: Go decides per org, with internal/schedule, whether its
//     briefing is due at now (a memo shares the decision between orgs with
//     the same config);
//   - enqueue.go: due briefings and their generation tasks are inserted in
//     one transaction, the UNIQUE (org_id, briefing_date) key and
//     scheduled_at making a second scheduled firing impossible;
//   - hints.go: each org's firing minute, stored so the next ticks read
//     only the orgs whose minute has come (a firing does not change it);
//   - tick.go: the Ticker that runs them once a minute under the tick lock.
//
// Time is always a parameter (the tick's now), never now() or current_date
// in SQL that decides, so every rule is testable at any instant.
package tick
