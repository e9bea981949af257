"""ta_convtasnet: torchaudio.models.ConvTasNet, tiny (2 sources, enc kernel 16 / 32 filters, 2 stacks of 2 layers, bottleneck 16, hidden 32); returns the separated sources."""
import torch
import torchaudio


def make_model():
    torch.manual_seed(0)
    return torchaudio.models.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=32, msk_kernel_size=3,
                                        msk_num_feats=16, msk_num_hidden_feats=32, msk_num_layers=2,
                                        msk_num_stacks=2).eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 1, 400, generator=g),)
