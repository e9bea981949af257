"""vit: transformers ViTModel, tiny random config (image 16, patch 4, hidden 32, 2 layers, 4 heads); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=64)
        self.m = transformers.ViTModel(cfg, add_pooling_layer=False)

    def forward(self, pixel_values):
        return self.m(pixel_values=pixel_values).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 3, 16, 16, generator=g),)
