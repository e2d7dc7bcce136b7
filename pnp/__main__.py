"""`python -m pnp ...` runs the same command line as the installed `pnp` script (useful without installing)."""

from .cli import main

if __name__ == "__main__":
    main()
