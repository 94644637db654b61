package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpump/gpump/games"

	"github.com/urfave/cli/v2"
	"gorgonia.org/tensor"

	"github.com/gpump/gpump/datasets"
	"github.com/gpump/gpump/internal/certify"
)

// exitClaimFails is verify's exit status when the claimed gap does not
// hold.
const exitClaimFails = 2

// verifyOptions are gpump verify's flags.
type verifyOptions struct {
	read        datasets.ReadOptions
	gap, relGap float64
	json        bool
	given       map[string]bool // the flags the command line gave
}

func verifyCommand() *cli.Command {
	o := &verifyOptions{read: datasets.ReadOptions{DType: tensor.Float64}}
	return &cli.Command{
		Name:      "verify",
		Usage:     "recompute a pair's value bracket rigorously and check a claimed gap",
		ArgsUsage: "PAYOFF RESULT",
		Description: `Reads the payoff matrix (any format solve reads) and a pair of strategies:
a gpump result (.json, with row_strategy and column_strategy, or the
strategies archive it names) or an .npz archive with members row and column
(gpump's --strategies, or any solver's, written with numpy.savez). The
strategies are normalized exactly (p/Σp, q/Σq; entries must be ≥ 0).

It encloses lower = min_j (Aᵀp)_j, upper = max_i (Aq)_i and the gap
upper − lower in intervals that contain the exact real numbers: compensated
(twice-working-precision) sums with an explicit bound on their rounding,
rounded outward. The claim checked is --gap, or --rel-gap times max |A_ij|,
or else what the result claims: its target relative gap if it converged,
else its gap widened by the rounding of the float64 sums that computed
it, 2(γ_m + γ_n)·max |A_ij| with γ_k = k·2⁻⁵³/(1 − k·2⁻⁵³) (plus, either
way, twice its rounding_bound, for a float32 solve of a float64 matrix).
The gap a result reports is a float64 sum and can lie a few ulps below
the pair's exact gap; --gap checks it as well. Where the intervals cannot decide it (a claim
within a few ulps of the gap, as for exact solutions), the rows and columns
that can attain the maximum and the minimum are summed again exactly and
the claim is compared in rational arithmetic.

Exit status: 0 when the claim holds (or no claim was made), 2 when the
pair's exact gap exceeds it, 1 on an error.

Examples:
   gpump solve A.npy --eps 1e-9 -o result.json && gpump verify A.npy result.json
   gpump verify A.npy strategies.npz --rel-gap 1e-9`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Destination: &o.read.Format, Usage: "format of the payoff file: npy, npz, csv or mtx", DefaultText: "from the extension"},
			&cli.StringFlag{Name: "key", Destination: &o.read.Key, Usage: "member of an .npz payoff archive", DefaultText: "its only member"},
			&cli.Float64Flag{Name: "gap", Destination: &o.gap, Usage: "claimed absolute gap to check", DefaultText: "the result's"},
			&cli.Float64Flag{Name: "rel-gap", Destination: &o.relGap, Usage: "claimed gap relative to max |A_ij| to check (taken exactly)", DefaultText: "the result's"},
			&cli.BoolFlag{Name: "json", Destination: &o.json, Usage: "print the verdict as one JSON object"},
		},
		Action: func(c *cli.Context) error {
			o.given = givenFlags(c)
			return verifyAction(c, o)
		},
	}
}

// verdict is verify's JSON output.
type verdict struct {
	Payoff      string     `json:"payoff"`
	Strategies  string     `json:"strategies"`
	M           int        `json:"m"`
	N           int        `json:"n"`
	MaxAbs      float64    `json:"max_abs_entry"`
	Lower       [2]float64 `json:"value_lower"`
	Upper       [2]float64 `json:"value_upper"`
	Gap         [2]float64 `json:"gap"`
	Claim       *float64   `json:"claimed_gap,omitempty"`
	ClaimSource string     `json:"claim_source,omitempty"`
	Holds       *bool      `json:"holds,omitempty"`
	Exact       bool       `json:"decided_exactly"`
}

func verifyAction(c *cli.Context, o *verifyOptions) error {
	if c.NArg() != 2 {
		return fmt.Errorf("verify takes a payoff file and a result (.json) or strategies (.npz), got %d arguments", c.NArg())
	}
	if o.given["gap"] && o.given["rel-gap"] {
		return errors.New("give --gap or --rel-gap, not both")
	}
	payoff, result := c.Args().Get(0), c.Args().Get(1)
	a, err := datasets.Read(payoff, &o.read)
	if err != nil {
		return err
	}
	sh := a.Shape()
	m, n := sh[0], sh[1]
	p, q, cl, err := readClaim(result)
	if err != nil {
		return err
	}
	if len(p) != m || len(q) != n {
		return fmt.Errorf("%s holds strategies for a %d×%d game, not the %d×%d of %s", result, len(p), len(q), m, n, payoff)
	}
	b, err := certify.Check(&certify.Dense{M: m, N: n, Data: a.Data().([]float64)}, p, q)
	if err != nil {
		return fmt.Errorf("%s: %w", result, err)
	}
	out := verdict{Payoff: payoff, Strategies: result, M: m, N: n, MaxAbs: b.MaxAbs,
		Lower: [2]float64{b.Lower.Lo, b.Lower.Hi}, Upper: [2]float64{b.Upper.Lo, b.Upper.Hi}, Gap: [2]float64{b.Gap.Lo, b.Gap.Hi}}
	var claim *big.Rat
	switch {
	case o.given["gap"]:
		g := o.gap
		if !(g >= 0) || math.IsInf(g, 1) {
			return fmt.Errorf("--gap must be a finite number ≥ 0, got %v", g)
		}
		claim, out.ClaimSource = new(big.Rat).SetFloat64(g), "--gap"
	case o.given["rel-gap"]:
		g := o.relGap
		if !(g >= 0) || math.IsInf(g, 1) {
			return fmt.Errorf("--rel-gap must be a finite number ≥ 0, got %v", g)
		}
		claim = new(big.Rat).Mul(new(big.Rat).SetFloat64(g), new(big.Rat).SetFloat64(b.MaxAbs))
		out.ClaimSource = "--rel-gap"
	case cl.target > 0:
		claim = new(big.Rat).Mul(new(big.Rat).SetFloat64(cl.target), new(big.Rat).SetFloat64(b.MaxAbs))
		claim.Add(claim, new(big.Rat).SetFloat64(2*cl.bound))
		out.ClaimSource = result + "'s target"
	case cl.gap != nil:
		claim = new(big.Rat).SetFloat64(*cl.gap)
		claim.Add(claim, new(big.Rat).SetFloat64(2*cl.bound))
		// The gap is a float64 sum, a few ulps below the exact gap about
		// half the time (1.2e-17 below on a 1200×900 game, whose bound
		// is 5.8e-12): the claim allows for that sum's rounding.
		claim.Add(claim, new(big.Rat).SetFloat64(certify.FloatGapBound(m, n, b.MaxAbs)))
		out.ClaimSource = result + "'s gap, plus its float64 sums' rounding"
	}
	var v certify.Verdict
	if claim != nil {
		if v, out.Exact, err = b.DecideRat(claim); err != nil {
			return err
		}
		f, _ := claim.Float64()
		holds := v == certify.Holds
		out.Claim, out.Holds = &f, &holds
	}
	if o.json {
		enc := json.NewEncoder(c.App.Writer)
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		writeVerdict(c.App.Writer, &out)
	}
	if v == certify.Fails {
		return exitStatus(exitClaimFails)
	}
	return nil
}

// writeVerdict prints the verdict for a reader.
func writeVerdict(w io.Writer, v *verdict) {
	rel := func(x float64) float64 {
		if v.MaxAbs == 0 {
			return 0
		}
		return x / v.MaxAbs
	}
	fmt.Fprintf(w, "game        %s: %d×%d, max |A_ij| %.17g\n", v.Payoff, v.M, v.N, v.MaxAbs)
	fmt.Fprintf(w, "strategies  %s\n", v.Strategies)
	fmt.Fprintf(w, "lower       min_j (Aᵀp)_j in [%.17g, %.17g]\n", v.Lower[0], v.Lower[1])
	fmt.Fprintf(w, "upper       max_i (Aq)_i in [%.17g, %.17g]\n", v.Upper[0], v.Upper[1])
	fmt.Fprintf(w, "gap         in [%.6g, %.6g] (relative [%.3g, %.3g])\n", v.Gap[0], v.Gap[1], rel(v.Gap[0]), rel(v.Gap[1]))
	if v.Claim == nil {
		fmt.Fprintln(w, "claim       none (give --gap or --rel-gap)")
		return
	}
	how := "in float64 with the rounding bound"
	if v.Exact {
		how = "exactly, in rational arithmetic"
	}
	word := "holds"
	if !*v.Holds {
		word = "does not hold"
	}
	fmt.Fprintf(w, "claim       gap ≤ %.6g (relative %.3g, from %s): %s, decided %s\n", *v.Claim, rel(*v.Claim), v.ClaimSource, word, how)
}

// resultClaim is what a result claims: the relative gap target it
// converged to (0 if none), else its gap (nil if none), each widened by
// twice its rounding_bound.
type resultClaim struct {
	target float64
	gap    *float64
	bound  float64
}

// readClaim reads the strategies of a result (.json) or a strategies
// archive (.npz), and what the result claims (nothing for an archive).
//
// A converged result claims its target: the gap it reports is the float64
// sum's, which can fall a few ulps below the pair's exact gap (verify
// finds exactly that on most results), while the target is what the
// solve promised. A result that did not converge claims its gap.
func readClaim(path string) (p, q []float64, cl resultClaim, err error) {
	w, err := games.ReadWarmStart(path)
	if err != nil {
		return nil, nil, cl, err
	}
	if w.Solution != nil {
		return nil, nil, cl, fmt.Errorf("%s holds a problem's solution, not a game's strategies", path)
	}
	if strings.EqualFold(filepath.Ext(path), ".npz") {
		return w.Row, w.Column, cl, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, cl, err
	}
	var r struct {
		Status        string   `json:"status"`
		Target        float64  `json:"target_relative_gap"`
		Gap           *float64 `json:"gap"`
		RoundingBound float64  `json:"rounding_bound"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, cl, fmt.Errorf("%s: %w", path, err)
	}
	finite := func(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }
	if finite(r.RoundingBound) {
		cl.bound = r.RoundingBound
	}
	if r.Status == "converged" && r.Target > 0 && finite(r.Target) {
		cl.target = r.Target
	} else if r.Gap != nil && finite(*r.Gap) {
		cl.gap = r.Gap
	}
	return w.Row, w.Column, cl, nil
}
