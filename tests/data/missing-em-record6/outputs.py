"""Outputs (N x 3, identity link) of iris-em-kmeans.model on iris-em.csv, by the radial module on
PYTHONPATH, written with 17 significant digits."""
import sys
import numpy as np
import radial

x = np.genfromtxt("iris-em.csv", delimiter=",", skip_header=1, missing_values="?",
                  filling_values=np.nan)[:, :-1]
m = radial.load("iris-em-kmeans.model")
out = m._handle.outputs(x)
np.savetxt(sys.argv[1], out, delimiter=",", fmt="%.17g")
