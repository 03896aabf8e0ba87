#pragma once
// EM for Gaussian mixtures, in pieces that every mixture learner shares (gmm, dem, prbf):
//
//   E-step   responsibilities r_nj = w_j N(x_n|j) / sum_j' w_j' N(x_n|j'), by log-sum-exp over
//            log-density blocks, accumulated straight into occupation counts
//            C(1)_j = sum_n r_nj, C(x)_j = sum_n r_nj x_n and the scatter about a reference
//            m_j, sum_n r_nj (x_n - m_j)(x_n - m_j)^T (its diagonal for Spherical and Diagonal)
//            (Klautau, paper 002, section III-A and fig. 1; Nabney / Bishop for full covariances)
//            (mixture_estep.cpp). The weights may be one set for every row or one set per class
//            (PRBF's pi_jk, Constantinopoulos et al. eq 4); then the counts are also kept per
//            class.
//   M-step   w_j = C(1)_j / sum C(1), mu_j = m_j + C(x - m)_j / C(1)_j, Sigma_j = the scatter about
//   mu_j
//            over C(1)_j, from the centred scatter (no E[x^2] - mean^2 cancellation), for
//            spherical, diagonal and full covariances, with a covariance floor (mixture_mstep.cpp)
//   driver   em_mixture(): E/M iterations with a monotone log-likelihood trace, convergence on
//            its relative change, an iteration cap, and the empty-component policy below
//            (mixture_em.cpp)
//
// Densities come either from GaussianLogDensity (blocked GEMM identity, the brute-force path;
// for Diagonal and well-conditioned Full shapes one GEMM of the rows' features [x^2, x, 1] or
// [(y_a y_b)_{a<=b}, y, 1] gives every density, and for Full one more every count)
// or, when a GaussianBoxTree is given, from TreeLogDensity over each row's leaf candidates
// (paper 002, section III-C), with the other Gaussians taken as 0. A row whose leaf holds none
// of the Gaussians it may use gets them evaluated directly (one fallback for every E-step).
// Every path runs over fixed row blocks with an ordered reduction (radial/exec/parallel.hpp): the
// counts are bit-identical for any thread count.
//
// Class-conditional mixtures: components carry owner classes (Centres::owner) and a row is
// responsible only to the components of its group (its class), with weights normalised within
// each group; so K per-class mixtures are one set of centres.
//
// Covariance floor: every variance (spherical, diagonal entry, full diagonal entry) below
// `covariance_floor` is raised to it; a full covariance with a conditional variance (squared
// Cholesky pivot) still below the floor, i.e. near-singular, gets the smallest
// floor * 10^i * I added that lifts every pivot to the floor. Each firing is counted.
// Empty-component policy ("reseed-worst"): a component whose C(1) falls below
// `empty_count` (default 1e-8 rows) is moved to the row with the lowest log-likelihood under
// the current mixture (the next lowest for the next empty component), given the mean variance
// of the other components of its group and the weight 1/N_group, and the weights renormalised.
// Each repair is counted and described in EmResult::notes.
//
// Sharded data (radial/distributed/collectives.hpp): inside a ShardedScope, x (with its labels)
// holds this rank's rows and every function here is collective. Each E-step's block-ordered partial
// counts are summed over ranks in rank order, row counts are global, and the reseed row is the
// global arg min (ties: the lower global row), sent by its owner; so every rank ends with the same
// parameters, equal to one process's on all rows up to the order of the sums.
// row_log_likelihood and k-means assignments stay per local row. A K-d tree for sharded rows
// is built on box_tree_sample (kdtree.hpp), as em_mixture does.

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/numerics/kdtree.hpp"
#include "radial/core/types.hpp"

namespace radial {

// Total responsibility (rows) below which a component is empty (dead): the M-step leaves it
// unchanged and the learner repairs or reports it.
constexpr double empty_component_count = 1e-8;

// Occupation counts of a mixture (paper 002, section III-A). The scatter is centred on a
// reference m_j (`reference`, M x d): the means at the E-step (the brute-force E-step sums it
// as one product per row block about a shared shift and moves it to each m_j exactly, or
// directly where that shift would cancel; mixture_estep.cpp). Spherical and Diagonal keep the
// diagonal of the scatter, scatter_diagonal(j, k) = sum_n r_nj (x_nk - m_jk)^2; Full keeps all
// of it.
// With class-specific weights (e_step with a weight matrix) class_c1 and class_cx hold
// C(1) and C(x) of each class's rows (PRBF's sum_{x in X_k} P(j|x,C_k) and its x-weighted sum).
struct MixtureCounts {
  Vector c1;                 // M
  Matrix cx;                 // M x d          sum_n r_nj x_n
  Matrix cy;                 // M x d          sum_n r_nj (x_n - m_j), the centred first moment
  Matrix scatter_diagonal;   // M x d          (Spherical, Diagonal)
  Tensor3 scatter;           // M x d x d      (Full)
  Matrix reference;          // M x d
  Matrix class_c1;           // M x K          (class-specific weights only)
  Tensor3 class_cx;          // M x K x d      (class-specific weights only)
  Shape shape = Shape::Diagonal;

  // Zeroes the counts for M components in d dimensions (no class counts).
  void reset(std::size_t m, std::size_t d, Shape shape);
};

// The covariance of component j's weighted rows about any mean mu (d values):
// sum_n r_nj (x_n - mu)(x_n - mu)^T / C(1)_j = (S + C(1) e e^T - e g^T - g e^T) / C(1)_j with
// S the scatter about the reference m_j, e = mu - m_j and g = cy_j = sum_n r_nj (x_n - m_j)
// (summed centred, so no first-moment cancellation either). For mu = m_j + cy_j / C(1)_j this
// is the EM update (PRBF eq 7, Klautau fig. 1); for a MAP mean it is PRBF eq 28. `out` gets d variances (Spherical, Diagonal) or the d x d matrix (Full).
void covariance_about(const MixtureCounts& counts, std::size_t j, const double* mean,
                      double* out);

struct EStepOptions {
  const GaussianBoxTree* tree = nullptr;  // null: every Gaussian evaluated (brute force)
  std::size_t block_rows = 512;
  // Row-block parallelism of the brute-force E-step (radial/exec/parallel.hpp: per-block counts
  // summed in block order, so results do not depend on it); 0 = all cores.
  int threads = 1;
  // false: only the log-likelihood is wanted (the last E-step of EM); counts stay zero.
  bool statistics = true;
};

struct EStepSummary {
  double log_likelihood = 0;     // sum_n log sum_{j in group(n)} w_j N(x_n|j)
  Vector row_log_likelihood;     // N, the terms of that sum
  std::size_t fallback_rows = 0; // rows whose leaf held none of their group's Gaussians: those
                                 // Gaussians were evaluated for the row anyway
  double mean_candidates = 0;    // Gaussians evaluated per row
};

// E-step for one mixture. `components` must have a shape; `log_weights` (M) holds log w_j
// (-inf allowed). With `groups` (N labels, may be null) row n is responsible only to
// components j with components.owner(j) == groups(n). Counts are reset and filled
// (counts.shape = components.shape).
EStepSummary e_step(const Matrix& x, const Centres& components, const Vector& log_weights,
                    const Labels* groups, const EStepOptions& options, MixtureCounts& counts);

// E-step with class-specific weights: a row of class k = classes(n) sees the weights
// log_weights(:, k) (M x K), e.g. PRBF's log pi_jk (Constantinopoulos et al., eq 4:
// P(j|x,C_k) = pi_jk p(x|j) / sum_i pi_ik p(x|i)); components with owners are further limited
// to the row's class. Fills counts.class_c1 and counts.class_cx besides the totals;
// log_likelihood is sum_n log sum_j pi_{j,y_n} p(x_n|j).
EStepSummary e_step(const Matrix& x, const Centres& components, const Matrix& log_weights,
                    const Labels& classes, const EStepOptions& options, MixtureCounts& counts);

// The discriminative E-step of DEM (paper 002, fig. 2), from one evaluation of the densities:
// numerator counts over the components of each row's own class (owner == classes(n), weights
// log_weights_numerator = log w_jg), denominator counts over all components (the evidence
// mixture, log_weights_denominator = log P(y) w_jg).
struct DiscriminativeSummary {
  double log_numerator = 0;    // sum_n log p(x_n | y_n)
  double log_denominator = 0;  // sum_n log p(x_n)
  std::size_t fallback_rows = 0;
  double mean_candidates = 0;
};
DiscriminativeSummary e_step_discriminative(const Matrix& x, const Labels& classes,
                                            const Centres& components,
                                            const Vector& log_weights_numerator,
                                            const Vector& log_weights_denominator,
                                            const EStepOptions& options, MixtureCounts& numerator,
                                            MixtureCounts& denominator);

struct MStepOptions {
  double covariance_floor = 1e-6;  // variances below are raised to it
  double empty_count = empty_component_count;  // components with C(1) below keep their old
                                               // parameters
};

struct MStepSummary {
  std::size_t floored = 0;               // variances raised to the floor
  double smallest_variance = 0;          // before flooring
  std::size_t jittered = 0;              // full covariances that needed floor * 10^i * I added
  double largest_jitter = 0;
  std::vector<std::size_t> empty;        // components with C(1) < empty_count (left unchanged)
};

// M-step (paper 002, fig. 1): new weights (normalised within owner groups when
// components.owner is set), means and covariances of components.shape from `counts`.
MStepSummary m_step(const MixtureCounts& counts, const MStepOptions& options,
                    Centres& components, Vector& weights);

// Parameters from a hard assignment (k-means labels): the M-step of 0/1 responsibilities, with
// the k-means centres as means. Clusters of fewer than 2 rows have no variance to estimate and
// get the variance of all rows (per dimension); weights are the cluster fractions.
void mixture_from_assignment(const Matrix& x, const Labels& assignment, const Matrix& means,
                             Shape shape, double covariance_floor, Centres& components,
                             Vector& weights);

struct EmOptions {
  Shape shape = Shape::Diagonal;
  std::size_t iterations = 100;    // cap on E/M iterations
  double tolerance = 1e-6;         // stop when |L_i - L_{i-1}| <= tolerance |L_{i-1}|; 0: never
  double covariance_floor = 1e-6;
  bool use_tree = false;           // K-d tree of Gaussian boxes in the E-step
  GaussianBoxTreeOptions tree;
  std::size_t block_rows = 512;
  int threads = 1;                 // E-step and k-means initialisation threads (0: all cores)
};

// A mixture learner's EM parameters: `<prefix>iterations`, `<prefix>tolerance` (with their
// docs), `covariance_floor` and the K-d tree's (add_kdtree_params). Declared once for every
// learner that runs EM (gmm with prefix "", dem's EM start with "em_").
OptionTable<EmOptions> em_table(const std::string& prefix, std::string iterations_doc,
                                std::string tolerance_doc);

struct EmResult {
  Centres components;                   // means and shape arrays
  Vector weights;                       // M, sum 1
  std::vector<double> log_likelihood;   // L(theta_i) before the i-th M-step, i = 0..
  double final_log_likelihood = 0;      // L of the returned parameters
  std::size_t iterations = 0;           // M-steps taken
  bool converged = false;
  std::size_t floored = 0;              // covariance-floor firings, summed over iterations
  std::size_t empty_repairs = 0;
  std::size_t fallback_rows = 0;        // summed over E-steps (tree only)
  double mean_candidates = 0;           // of the last E-step
  std::vector<std::string> notes;       // one line per guard event, for the fit report
};

// EM from given initial parameters (components with a shape equal to options.shape, weights
// summing to 1). Throws ShapeError for inconsistent inputs.
EmResult em_mixture(const Matrix& x, Centres initial, Vector initial_weights,
                    const EmOptions& options);

// k-means initialisation (radial::kmeans, seeded by rng) followed by em_mixture. Throws
// InputError when x has fewer rows than `count`.
EmResult em_mixture_kmeans(const Matrix& x, std::size_t count, const EmOptions& options,
                           std::mt19937_64& rng, std::size_t* kmeans_repairs = nullptr);

// One mixture of `count` Gaussians per class (paper 002, fig. 1), each fitted by
// em_mixture_kmeans on its class's rows, assembled as M = K * count centres with owner = class,
// mixing pi_jk = w_jg for the owner class (0 elsewhere) and class priors N_k / N. `where`
// names the caller in errors (e.g. "centres gmm"). Throws InputError for a class with fewer
// rows than `count`.
struct ClassMixtures {
  Centres centres;
  std::vector<EmResult> per_class;  // K
  std::size_t kmeans_repairs = 0;
};
ClassMixtures fit_class_mixtures(const Matrix& x, const Labels& classes, std::size_t num_classes,
                                 std::size_t count, const EmOptions& options,
                                 std::mt19937_64& rng, const std::string& where);

// The total log-likelihood of a mixture on x (brute force), sum_n log sum_j w_j N(x_n|j).
double mixture_log_likelihood(const Matrix& x, const Centres& components, const Vector& weights);

}  // namespace radial
