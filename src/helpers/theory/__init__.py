"""Theory computed in code, one module per chapter's concept, re-exported here."""

from .exact_large_step import *  # noqa: F401,F403
from .large_step import *  # noqa: F401,F403
from .setting import kernel_lower_bound, label_second_moment, neuron_movement
from .small_step import *  # noqa: F401,F403
from .spike import *  # noqa: F401,F403

__all__ = ["kernel_lower_bound", "label_second_moment", "neuron_movement"]
