// Package gan trains mixed strategies of generative adversarial networks by
// solving, every round, the matrix game of a population of generators
// against a population of discriminators with the solver package: the
// particle form of the mixed Nash formulation of GANs (Hsieh, Liu, Cevher,
// "Finding Mixed Nash Equilibria of Generative Adversarial Networks", 2019).
//
// K generator particles θ_k and J discriminator particles φ_j, small MLPs
// (two tanh hidden layers), carry mixture weights p and q. A round
//
//  1. evaluates the payoff matrix M_kj = E_x f_r(D_j(x)) − E_z f_f(D_j(G_k(z)))
//     on one shared minibatch, as blocked, batched float32 matrix products
//     over all particles at once (package gan/payoff: AVX-512/AVX2 kernels
//     on Config.Threads threads, or another evaluator from Config.Payoff);
//  2. solves the game min_p max_q pᵀMq with a solver.Method (GA-UMP's
//     ga-stochastic by default) on a tensorops backend where the game was
//     placed once: each round replaces its entries (SetPayoff) and warm-starts
//     from the last round's pair, to a gap relative to max |M| (Config.RelGap);
//     the recorded gap of each round is the solver's certified gap;
//  3. moves the particles with Adam: every discriminator against the
//     p-mixture of generators, then every generator against the q-mixture of
//     discriminators, optionally with Langevin noise; and optionally respawns
//     particles whose weight stays negligible at perturbed copies of the
//     heaviest.
//
// What makes a mixture beat a single generator is that each generator can
// settle on one mode as a tight cluster while the game weights them so
// that every mode gets its share: by default there are half again as many
// generators as the data has modes, the spares sharing a mode or weighted
// down. Two choices of the first draw make this happen within a few
// thousand rounds (Config.GenInit, DiscInit): the generators start as
// small blobs scattered over the data's spread, and the discriminators'
// first layers start sharp, at the scale of the modes rather than of the
// whole data. Over the last rounds both step sizes fall, so that the
// generators settle where the discriminators place the modes
// (Config.Sharpen).
//
// The returned Mixture is weighted by the average of the last rounds'
// solutions and of the final particles' game (Config.Average); Sample draws
// k ~ p, z ~ N(0, I) and returns G_k(z).
//
// The default loss is Log, the original GAN's cross-entropy, with the
// non-saturating generator steps: it needs no Lipschitz control, its payoff
// is bounded where the discriminators are not sure, and the published
// results on the ring and grid data sets use it. WGAN is offered with
// weight clipping as its Lipschitz control: a gradient penalty needs the
// gradient of an input gradient, which gorgonia's graphs do not give.
//
// Gradients come from the batched operator: the forward and backward
// passes of every particle's network on a step's minibatches as float32
// layers, one call of a Layers per layer for all networks (NewCPULayers:
// the sgemm kernels of the payoff matrix), with no allocation per round.
// gorgonia.org/gorgonia graphs, one per side, whose loss sums one term
// per particle, are the float64 reference it is tested against (with
// finite differences) and remain selectable (Config.Graphs), at about a
// tenth of the speed (docs/gan-operator.md). The payoff matrix (float32,
// gan/payoff) and the sampler (float64, gonum's BLAS) use hand-written
// forward passes, tested against each other.
package gan
