import sys

from vllm_fork.cli import main

sys.exit(main())
