"""What one run of a step costs, measured: tensor bytes and the step-peak rule
(``tensor_memory``), the CPU a timing got (``cpu_usage``), the GPU memory NVML attributes to
the process and the GPUs that list a process (``gpu_process``), the machine's physical and
available memory (``machine_memory``), the attention tiles' time per pair
(``attention_cost``) and the machine and versions a result was measured on
(``environment``). ``profile``, ``fit`` and ``suite`` measure with these alone."""
