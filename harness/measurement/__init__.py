"""What one run of a step costs, measured: tensor bytes and the step-peak rule
(``tensor_memory``), the CPU a timing got (``cpu_usage``), the GPU memory NVML attributes to
the process (``gpu_process``), the attention tiles' time per pair (``attention_cost``) and the
machine and versions a result was measured on (``environment``). ``profile``, ``fit`` and
``suite`` measure with these alone."""
