import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Conv3d, BatchNorm3d (training mode), AvgPool3d, HardSwish, clamp, mean over channels."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super(Model, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=1)
        self.bn = nn.BatchNorm3d(out_channels)
        self.pool = nn.AvgPool3d(2)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        x = self.pool(x)
        x = F.hardswish(x)
        x = torch.clamp(x, min=-1.0, max=1.0)
        x = torch.mean(x, dim=1)
        return x


batch_size = 2
in_channels = 3
out_channels = 6
depth, height, width = 6, 8, 8
kernel_size = 3


def get_inputs():
    return [torch.rand(batch_size, in_channels, depth, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
