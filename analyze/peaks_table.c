/*
 * The built-in device peaks table (docs/peaks.md, where every figure has its vendor source) and
 * the rules that match a device to one of its rows by the name the trace gives it, in order,
 * most specific first (analyze/peaks.c applies them). Figures are dense (no 2:4 sparsity), at
 * the vendor's boost clock; per dtype the highest dense rate the device has for that type
 * (tensor / matrix cores where it has them). 0 = the device has no such unit, or the vendor
 * publishes no peak for it.
 */
#include "analyze_internal.h"

/* fp64, fp32, tf32, bf16, fp16, fp8, int8 in TFLOP/s (int8: TOPS); TB/s; SMs or CUs. */
const struct tka_peak_model tka_peak_models[] = {
    /* NVIDIA Volta: V100 datasheet (r5), Volta whitepaper */
    {"V100 SXM2", {7.8, 15.7, 0, 0, 125, 0, 0}, 0.9, 80},
    {"V100 PCIe", {7, 14, 0, 0, 112, 0, 0}, 0.9, 80},
    {"V100S PCIe", {8.2, 16.4, 0, 0, 130, 0, 0}, 1.134, 80},
    /* NVIDIA Ampere: A100 datasheet (r4; dense figures printed), Ampere whitepaper */
    {"A100 SXM4 40GB", {19.5, 19.5, 156, 312, 312, 0, 624}, 1.555, 108},
    {"A100 SXM4 80GB", {19.5, 19.5, 156, 312, 312, 0, 624}, 2.039, 108},
    {"A100 PCIe 40GB", {19.5, 19.5, 156, 312, 312, 0, 624}, 1.555, 108},
    {"A100 PCIe 80GB", {19.5, 19.5, 156, 312, 312, 0, 624}, 1.935, 108},
    /* NVIDIA Hopper: H100 and H200 datasheets (tensor figures printed with sparsity: halved) */
    {"H100 SXM5 80GB", {67, 67, 494.5, 989.5, 989.5, 1979, 1979}, 3.35, 132},
    {"H100 PCIe", {51, 51, 378, 756.5, 756.5, 1513, 1513}, 2.0, 114},
    {"H100 NVL", {60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5}, 3.9, 132},
    {"H200 SXM", {67, 67, 494.5, 989.5, 989.5, 1979, 1979}, 4.8, 132},
    {"H200 NVL", {60, 60, 417.5, 835.5, 835.5, 1670.5, 1670.5}, 4.8, 132},
    /* NVIDIA Blackwell: Blackwell datasheet, HGX B200 and GB200 NVL72 columns (halved) */
    {"B200", {37, 75, 1100, 2250, 2250, 4500, 4500}, 7.7, 0},
    {"GB200", {40, 80, 1250, 2500, 2500, 5000, 5000}, 8.0, 0},
    /* NVIDIA inference cards: L4 (halved), A10 (dense printed), T4 datasheets */
    {"L4", {0, 30.3, 60, 121, 121, 242.5, 242.5}, 0.3, 58},
    {"A10", {0, 31.2, 62.5, 125, 125, 0, 250}, 0.6, 72},
    {"T4", {0, 8.1, 0, 0, 65, 0, 130}, 0.32, 40},
    /* AMD, per device as ROCm shows it: an MI250/MI250X GCD is half of its package */
    {"MI250X GCD", {47.85, 47.85, 0, 191.5, 191.5, 0, 191.5}, 1.6, 110},
    {"MI250 GCD", {45.25, 45.25, 0, 181.05, 181.05, 0, 181.05}, 1.6, 104},
    {"MI300X", {163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9}, 5.3, 304},
    {"MI355X", {78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 5033.2}, 8.0, 256},
    /* Google TPU, per chip (= per JAX device): Cloud TPU system architecture pages */
    {"TPU v4", {0, 0, 0, 275, 0, 0, 275}, 1.2, 0},
    {"TPU v5e", {0, 0, 0, 197, 0, 0, 393}, 0.819, 0},
    {"TPU v5p", {0, 0, 0, 459, 0, 0, 918}, 2.765, 0},
    {"TPU v6e", {0, 0, 0, 918, 0, 0, 1836}, 1.638, 0},
    {NULL, {0}, 0, 0},
};

#define NV "nvidia"
#define AMD "amd"
#define NONAME "" /* the rule applies to devices the trace gives no name */

/* name glob, vendor, cc, units, clock MHz, memory GiB min, max, row, note */
const struct tka_peak_rule tka_peak_rules[] = {
    {"*V100S-PCIE*", NV, NULL, 0, 0, 0, 0, "V100S PCIe", NULL},
    {"*V100-PCIE*", NV, NULL, 0, 0, 0, 0, "V100 PCIe", NULL},
    {"*V100-FHHL*", NV, NULL, 0, 0, 0, 0, "V100 PCIe",
     "approximate: the 150 W V100 FHHL is not in the V100 datasheet and clocks lower than the "
     "PCIe card, whose peaks are a ceiling for it"},
    {"*V100-SXM2*", NV, NULL, 0, 0, 0, 0, "V100 SXM2", NULL},
    {"*V100-SXM3*", NV, NULL, 0, 0, 0, 0, "V100 SXM2",
     "approximate: DGX-2's V100 SXM3 is not in the V100 datasheet; it may clock higher than "
     "the SXM2 module, whose peaks are a floor for it"},
    {"*V100-DGXS*", NV, NULL, 0, 0, 0, 0, "V100 SXM2",
     "approximate: DGX Station's V100 is an NVLink module not in the V100 datasheet; the SXM2 "
     "peaks are assumed"},
    {NONAME, NV, "7.0", 80, 1530, 0, 0, "V100 SXM2",
     "no name: compute capability 7.0, 80 SMs and a 1530 MHz clock are a V100 SXM2's"},
    {NONAME, NV, "7.0", 80, 1380, 0, 0, "V100 PCIe",
     "no name: compute capability 7.0, 80 SMs and a 1380 MHz clock are a V100 PCIe's"},
    {"*A100-SXM4-40GB*", NV, NULL, 0, 0, 0, 0, "A100 SXM4 40GB", NULL},
    {"*A100-PG509-200*", NV, NULL, 0, 0, 0, 0, "A100 SXM4 40GB",
     "PG509-200 is the A100 SXM4 40 GB board (PCI device 20B0)"},
    {"*A100-SXM4-80GB*", NV, NULL, 0, 0, 0, 0, "A100 SXM4 80GB", NULL},
    {"*PG509-210*", NV, NULL, 0, 0, 0, 0, "A100 SXM4 80GB",
     "PG509-210 is the A100 SXM4 80 GB board (PCI device 20B2)"},
    {"*A100-PCIE-40GB*", NV, NULL, 0, 0, 0, 0, "A100 PCIe 40GB", NULL},
    {"*A100 80GB PCIe*", NV, NULL, 0, 0, 0, 0, "A100 PCIe 80GB", NULL},
    {"*A100-PCIE-80GB*", NV, NULL, 0, 0, 0, 0, "A100 PCIe 80GB", NULL},
    {NONAME, NV, "8.0", 108, 0, 0, 48, "A100 SXM4 40GB",
     "no name: compute capability 8.0, 108 SMs and 40 GB are an A100 40GB (SXM4 and PCIe have "
     "the same peaks)"},
    {NONAME, NV, "8.0", 108, 0, 48, 0, "A100 SXM4 80GB",
     "approximate: no name; compute capability 8.0, 108 SMs and 80 GB are an A100 80GB, SXM4 "
     "assumed (PCIe: 1.935 TB/s)"},
    {"*H100 NVL*", NV, NULL, 0, 0, 0, 0, "H100 NVL", NULL},
    {"*H100 PCIe*", NV, NULL, 0, 0, 0, 0, "H100 PCIe", NULL},
    {"*H100*HBM3*", NV, NULL, 0, 0, 0, 0, "H100 SXM5 80GB", NULL},
    {"*H100*SXM*", NV, NULL, 0, 0, 0, 0, "H100 SXM5 80GB", NULL},
    {"NVIDIA H100", NV, NULL, 114, 0, 0, 0, "H100 PCIe",
     "the name does not say the form factor; 114 SMs are the H100 PCIe's"},
    {"NVIDIA H100", NV, NULL, 0, 0, 0, 0, "H100 SXM5 80GB",
     "approximate: the name does not say the form factor; the H100 SXM5 80GB peaks are "
     "assumed (a 94-96 GB part may have more bandwidth)"},
    {NONAME, NV, "9.0", 132, 0, 0, 88, "H100 SXM5 80GB",
     "approximate: no name; compute capability 9.0, 132 SMs and 80 GB are an H100 SXM5's "
     "(or an H100 NVL's, which clocks lower)"},
    {NONAME, NV, "9.0", 114, 0, 0, 0, "H100 PCIe",
     "no name: compute capability 9.0 and 114 SMs are an H100 PCIe's"},
    {"*H200 NVL*", NV, NULL, 0, 0, 0, 0, "H200 NVL", NULL},
    {"*H200*", NV, NULL, 0, 0, 0, 0, "H200 SXM", NULL},
    {"*GB200*", NV, NULL, 0, 0, 0, 0, "GB200", NULL},
    {"*B200*", NV, NULL, 0, 0, 0, 0, "B200", NULL},
    {"NVIDIA L4", NV, NULL, 0, 0, 0, 0, "L4", NULL},
    {"NVIDIA A10", NV, NULL, 0, 0, 0, 0, "A10", NULL},
    {"Tesla T4", NV, NULL, 0, 0, 0, 0, "T4", NULL},
    {"NVIDIA T4", NV, NULL, 0, 0, 0, 0, "T4", NULL},
    {"*MI355X*", AMD, NULL, 0, 0, 0, 0, "MI355X", NULL},
    {"*MI300X*", AMD, NULL, 0, 0, 0, 0, "MI300X", NULL},
    {"*MI250X/MI250*", AMD, NULL, 110, 0, 0, 0, "MI250X GCD",
     "ROCm names MI250X and MI250 alike; 110 CUs per device are an MI250X GCD's"},
    {"*MI250X/MI250*", AMD, NULL, 104, 0, 0, 0, "MI250 GCD",
     "ROCm names MI250X and MI250 alike; 104 CUs per device are an MI250 GCD's"},
    {"*MI250X/MI250*", AMD, NULL, 0, 0, 0, 0, "MI250X GCD",
     "approximate: ROCm names MI250X and MI250 alike and the trace gives no CU count; MI250X "
     "assumed (an MI250 GCD is 5 % slower)"},
    {"*MI250X*", AMD, NULL, 0, 0, 0, 0, "MI250X GCD", "one GCD, half of an MI250X package"},
    {"*MI250*", AMD, NULL, 0, 0, 0, 0, "MI250 GCD", "one GCD, half of an MI250 package"},
    {"AMD Radeon Graphics", AMD, "9.0", 110, 0, 0, 0, "MI250X GCD",
     "ROCm's generic name; gfx9.0 (CDNA2) with 110 CUs is an MI250X GCD"},
    {"AMD Radeon Graphics", AMD, "9.0", 104, 0, 0, 0, "MI250 GCD",
     "approximate: ROCm's generic name; gfx9.0 (CDNA2) with 104 CUs is an MI250 GCD (or an "
     "MI210, not in this table)"},
    {NONAME, AMD, "9.4", 304, 0, 0, 192, "MI300X",
     "no name: gfx9.4 (CDNA3) with 304 CUs and 192 GB is an MI300X"},
    {"AMD Radeon Graphics", AMD, "9.4", 304, 0, 0, 192, "MI300X",
     "ROCm's generic name; gfx9.4 (CDNA3) with 304 CUs and 192 GB is an MI300X"},
    {"TPU v4", NULL, NULL, 0, 0, 0, 0, "TPU v4", NULL},
    {"TPU v5 lite", NULL, NULL, 0, 0, 0, 0, "TPU v5e", NULL},
    {"TPU v5e", NULL, NULL, 0, 0, 0, 0, "TPU v5e", NULL},
    {"TPU v5", NULL, NULL, 0, 0, 0, 0, "TPU v5p", NULL},
    {"TPU v5p", NULL, NULL, 0, 0, 0, 0, "TPU v5p", NULL},
    {"TPU v6 lite", NULL, NULL, 0, 0, 0, 0, "TPU v6e", NULL},
    {"TPU v6e", NULL, NULL, 0, 0, 0, 0, "TPU v6e", NULL},
    {NULL, NULL, NULL, 0, 0, 0, 0, NULL, NULL},
};
