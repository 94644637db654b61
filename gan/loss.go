package gan

import "fmt"

// Loss is the function f of the payoff
//
//	M_kj = E_x~data[f_r(D_j(x))] − E_z[f_f(D_j(G_k(z)))]
//
// that the discriminators maximize and the generators minimize.
type Loss int

const (
	// Log is the original GAN's cross-entropy: f_r(t) = log σ(t) and
	// f_f(t) = −log(1 − σ(t)), so that M_kj = E log σ(D(x)) +
	// E log(1 − σ(D(G(z)))). The generators' gradient steps use the
	// non-saturating loss −log σ(D(G(z))), which has the same fixed
	// points and does not vanish when the discriminators win.
	Log Loss = iota
	// WGAN is the Wasserstein critic f(t) = t, with the discriminators'
	// weights clipped to [−Clip, Clip] after every step (the Lipschitz
	// control).
	WGAN
)

// String returns the loss's command-line name.
func (l Loss) String() string {
	switch l {
	case Log:
		return "log"
	case WGAN:
		return "wgan"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss returns the loss of a command-line name: log or wgan.
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "log":
		return Log, nil
	case "wgan":
		return WGAN, nil
	}
	return 0, fmt.Errorf("gan: unknown loss %q (want log or wgan)", s)
}
