"""Executes a notebook from top to bottom in a fresh kernel (nbclient, ipykernel) and fails on
the first cell that raises. Exits 77 (CTest: skipped) with the reason when nbclient, nbformat,
ipykernel or the notebook's libraries are missing.

Usage: run_notebook.py NOTEBOOK.ipynb [OUTPUT.ipynb]
"""

import os
import shutil
import sys
import tempfile

missing = []
for module in ("nbclient", "nbformat", "ipykernel", "numpy", "pandas", "matplotlib"):
    try:
        __import__(module)
    except ImportError:
        missing.append(module)
if missing:
    print("skipped: the notebook test needs " + ", ".join(missing) + " (apt-get install " +
          " ".join("python3-" + m for m in missing) + ")")
    sys.exit(77)

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

notebook_path = sys.argv[1]
nb = nbformat.read(notebook_path, as_version=4)
# The kernel ("python3", ipykernel's native spec) runs this test's interpreter, the one the
# module was built for, in a fresh folder, where the notebook's files (results, tables) land.
work = tempfile.mkdtemp(prefix="infoflow-notebook-")
client = NotebookClient(nb, timeout=240, kernel_name="python3",
                        resources={"metadata": {"path": work}})
try:
    # (PYDEVD_...: ipykernel's debugger warns about frozen modules on every start.)
    client.execute(env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"))
except CellExecutionError as e:
    print(f"{notebook_path}: a cell failed (its folder is kept: {work}):\n{e}")
    sys.exit(1)
code_cells = [c for c in nb.cells if c.cell_type == "code"]
print(f"{notebook_path}: {len(code_cells)} code cells ran without error")
shutil.rmtree(work, ignore_errors=True)
if len(sys.argv) > 2:
    nbformat.write(nb, sys.argv[2])
