"""The Python environment of the TRL reference (scripts/trl/): a virtual environment in scripts/trl/.venv with
TRL, PyTorch (CPU), transformers and peft at the versions the fixtures were made with.

  python3 scripts/trl/trl_env.py          creates or completes the environment and prints its interpreter
  ensure_venv()                        (from the other scripts) re-runs the calling script inside it

Extra pip arguments come from TRL_PIP_ARGS (default: the local package index of these machines,
--index-url file:///opt/pypi/simple, since the default index is unreachable here and pip would retry it).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv")
PYTHON = os.path.join(VENV, "bin", "python")
REQUIREMENTS = ["torch==2.13.0+cpu", "trl==1.13.0", "transformers==5.18.0", "peft==0.21.0"]
DEFAULT_PIP_ARGS = "--index-url file:///opt/pypi/simple"


def installed() -> bool:
    if not os.path.exists(PYTHON):
        return False
    probe = "import torch, trl, transformers, peft"
    return subprocess.run([PYTHON, "-c", probe], capture_output=True).returncode == 0


def install() -> None:
    if not os.path.exists(PYTHON):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip_args = os.environ.get("TRL_PIP_ARGS", DEFAULT_PIP_ARGS).split()
    subprocess.run([PYTHON, "-m", "pip", "install", "-q", *pip_args, *REQUIREMENTS], check=True)


def ensure_venv() -> None:
    """Re-executes the running script with the environment's interpreter (installing it first if needed)."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not installed():
        install()
    os.execv(PYTHON, [PYTHON, *sys.argv])


if __name__ == "__main__":
    if not installed():
        install()
    print(PYTHON)
