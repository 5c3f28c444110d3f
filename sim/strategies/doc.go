// Package strategies reproduces paper 000 §4: 16,000 channels recrawled by a
// churning swarm of 1,400 (REC, the swarm cannot keep up) or 2,800 (RUC, it
// can) volunteer crawlers, under the strategies of sched/recrawl — FIXED,
// IIR, ICR and the load controller of design.md §9 — driven through their
// Strategy interface exactly as the manager drives them.
//
// # Model
//
// One step is one minute. Crawlers sit on a world.World: their Vivaldi
// coordinates place them in a p2p/can Map, and a task for a channel
// (a whole web host) is inserted at the owner of the host's solved point,
// with load balancing on insert (can.DecideInsert, TTL 3) forwarding it
// when the owner already holds threads + queue length tasks. Each crawler
// runs 5 task threads and queues the rest; a queued task that has waited
// longer than its recrawl interval is cancelled (a load-dependent failure
// the crawler reports). A task's download time is fixed when it starts:
// pages × (2 × latency + page size / (bandwidth / threads) + 200 ms), where
// 2 × latency is the matrix's RTT. Crawlers live N(1000, 200) steps, then a
// third leave with notice (their queued and running tasks migrate to the
// peer that takes their zone over and start again there) and two thirds
// crash (their tasks are lost; the manager is told at once, which stands
// for its timeout), and rejoin after N(600, 200) steps at the same point.
//
// Events are kept in per-step buckets (submissions, finishes, expiries,
// churn), so a step costs what happens in it, not a scan of all channels.
//
// # Reconstructions
//
// The readings of design.md §9 are used: group shares 3.4/24.7/44.7/23.9/3.4 %,
// bandwidth 1.5·N(1, 0.5) rounded to 512 Kb/s, 1 Mb/s or 2 Mb/s, update
// quality (u/S)·I with weights 2^rank, and a success rate that counts only
// load-dependent failures (recrawl.CountLoadOnly; CountAll can be run for
// comparison). Page counts per channel are drawn lognormal (σ = 1) with
// paper 000's mean, 15,187,511 pages over 1,738 hosts; pages are 10 KB.
package strategies
