# Makes the npz_*.npz and csv_*.csv fixtures of npz_test.go and
# csv_test.go with NumPy (1.24): run it in datasets/testdata with
#
#	python3 npz_csv_fixtures.py
#
# The tests check the files against the values written here.
import numpy as np

A = np.array([[0.5, -1.25, 1 / 3], [2.0, -0.1, 1e-300]])  # float64, 2x3
B = np.array([[1.5, -2.0], [0.1, 3.0], [-7.25, 1e30]], dtype=np.float32)  # 3x2
C = np.arange(12, dtype=np.float64).reshape(3, 4) / 8 - 0.5  # 3x4
I = np.arange(-3, 3, dtype="<i4").reshape(2, 3)
V = np.array([0.25, 0.75])

np.savez("npz_savez_one.npz", A)
np.savez("npz_savez_two.npz", a=A, b=B)
np.savez_compressed("npz_compressed_one.npz", A)
np.savez_compressed("npz_compressed_two.npz", a=A, b=B)
kinds = dict(
    be=A.astype(">f8"),
    fortran=np.asfortranarray(C),
    ints=I,
    vec=V,
)
np.savez("npz_kinds.npz", **kinds)
np.savez_compressed("npz_kinds_compressed.npz", **kinds)

np.savetxt("csv_savetxt_space.csv", C)
np.savetxt("csv_savetxt_comma.csv", A, delimiter=",", header="x,y,z")
np.savetxt("csv_savetxt_tab.csv", B, delimiter="\t", fmt="%.9g")
