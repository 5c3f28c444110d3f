// Package fountain plans a crawl cycle the way WebFountain's model does
// (paper 001 §4–5): pages sit in buckets by change rate, a cycle has T
// periods, each with a crawl budget, and the plan chooses how many old pages
// of each bucket (x_it) and how many never-crawled pages (z_t) to crawl in
// each period so as to minimise the weighted number of obsolete pages
//
//	Σ_t Σ_i oldwt_it·y_it + newwt_t·n_t
//	y_it = (1 − x_it/b_{i,t−1})·((1−a_i)·y_{i,t−1} + a_i·b_{i,t−1})
//	n_t  = n_{t−1} + Σ_i oldnwt_i·x_it + (newnwt − 1)·z_t + nconst
//	b_it = b_{i,t−1} + p_i·z_t
//	Σ_i c_i·x_it + d·z_t ≤ C_t,  0 ≤ x_it ≤ b_{i,t−1},  0 ≤ z_t ≤ n_{t−1}
//
// The paper's balance equation (4) for b_it was lost from its text; the form
// above (newly crawled pages join the buckets in the proportions p_i) is our
// reading of its prose. Change fractions a_i, costs and discovery
// probabilities are constant over the cycle here, where the paper allows
// them to vary by period.
//
// # Method
//
// The paper solved this nonlinear programme with MINOS. The constraints are
// one knapsack per period with box bounds, and the exact gradient comes from
// one backward (adjoint) pass over the buckets, so we run two first-order
// local methods from the uniform allocation (every known page crawled at the
// same rate) and keep the better plan:
//
//   - scaled projected gradient: a gradient step on the crawl fractions
//     x_it/b_{i,t−1}, projected back onto each period's budget, with a
//     backtracking step size;
//   - Frank–Wolfe (conditional gradient): a step towards the solution of the
//     linearised problem, a fractional knapsack solved by sorting the
//     variables by marginal benefit per second, by the best step a line
//     search finds.
//
// Both only accept steps that lower the true objective, so a plan is never
// worse than the uniform one. The objective is not convex (y is multilinear
// in the crawl fractions) and has many local optima that differ by well
// under 1 %; like MINOS the methods find one of them. Plan.Gap reports the
// Frank–Wolfe gap there (0 at a first-order stationary point).
//
// # Objective weightings
//
// Equal, LastOnly and LastHigh give the paper's three strategies. The weight
// of a period applies to both old obsolete pages and new uncrawled ones
// (oldwt_it = newwt_t).
//
// The package is pure: no I/O, no clock, no randomness.
package fountain
